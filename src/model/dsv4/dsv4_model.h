// DeepSeek-V4 as a model::Model: weights and per-slot state on one backend (the float64 oracle or the release
// numerics), forward over any mix of rows, rewind, canonical snapshots, and the MTP draft head. Every bad input (a
// token outside the vocabulary, a position past the context, a slot's rows out of order, a foreign snapshot) is a
// plumb::Error raised before any state changes.
//
// MTP protocol (model.h): forward() keeps the final residual streams X_p of each slot's last R + 1 positions. A draft
// row at q that is not chained takes X_q and must continue the slot's MTP position (q == mtp position, which then
// becomes q + 1); a chained row at q takes the MTP output of the slot's draft row at q - 1 and leaves the MTP
// position alone. Rows write the MTP block's window ring at q; rows at or past the MTP position are overwritten by
// the catch-up rows that follow, and a snapshot holds only the ring rows below it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "io/checkpoint_folder.h"
#include "kernels/backend.h"
#include "kernels/observed_backend.h"
#include "kernels/lane_check_backend.h"
#include "kernels/recording_backend.h"
#include "model/dsv4/config.h"
#include "model/dsv4/forward.h"
#include "model/dsv4/slot_state.h"
#include "model/dsv4/weights.h"
#include "model/model.h"

namespace plumb::dsv4 {

struct Dsv4Options {
  kernels::Numerics numerics = kernels::Numerics::release;
  std::string backend = "cpu";  // "cpu" (host: oracle or release numerics) or "cuda" (release numerics)
  int32_t slots = 4;
  int32_t max_rows_per_slot = 64;
  int64_t max_context = 0;  // 0: the config's max_position_embeddings
  std::string name;
  // When set, every op's outputs are recorded here in call order (diagnostics: compare backends op by op).
  std::vector<kernels::OpRecord>* record_ops = nullptr;
  // When set, sees every op begin and end (kernels/observed_backend.h; e.g. a kernels::OpTimer). Must outlive the
  // model.
  kernels::OpObserver* op_observer = nullptr;
  // Tests: every scratch tensor starts as NaN bytes, so an op that reads scratch it did not write shows.
  bool poison_scratch = false;
  // Tests: when set, the forward's lane hints are checked (kernels/lane_check_backend.h) and the hazards reported here.
  kernels::LaneReport* check_lanes = nullptr;
};

class Dsv4Model final : public model::Model {
 public:
  // Opens the folder's checkpoint on the chosen backend and numerics.
  static std::unique_ptr<Dsv4Model> open(const std::filesystem::path& dir, const Dsv4Options& options,
                                         const WeightProgress& progress = {});

  const model::ModelInfo& info() const override { return info_; }
  void reset_slot(int32_t slot) override;
  int64_t slot_position(int32_t slot) const override;
  void forward(std::span<const model::Row> rows, std::span<float> logits) override;
  void rewind(int32_t slot, int64_t position) override;
  model::SlotSnapshot snapshot(int32_t slot) const override;
  void restore(int32_t slot, const model::SlotSnapshot& snap) override;
  void draft_forward(std::span<const model::DraftRow> rows, std::span<float> logits) override;

  const Config& config() const { return config_; }
  kernels::Numerics numerics() const { return backend_->numerics(); }
  size_t state_bytes() const { return state_->bytes(); }
  size_t scratch_bytes() const { return forward_->scratch().bytes_held(); }
  std::string launch_summary() const { return backend_->launch_summary(); }  // the backend's (kernels/backend.h)
  // Records the routing and indexer choices (and optionally streams) of the main blocks of later forward() calls
  // (null: stop).
  void set_trace(ForwardTrace* trace) { trace_ = trace; }

 private:
  Dsv4Model(io::CheckpointFolder folder, Config config, const Dsv4Options& options, const WeightProgress& progress);

  void check_slot(int32_t slot, const char* what) const;
  void check_rows(std::span<const model::Row> rows, std::span<float> logits) const;
  void check_draft_rows(std::span<const model::DraftRow> rows, std::span<float> logits) const;
  void run_draft_wave(std::span<const model::DraftRow> rows, std::span<float> logits);
  void write_logits(const kernels::Tensor& x, std::span<const int64_t> rows, const HcWeights& hc,
                    const Weight& norm, std::span<float> logits);
  int64_t mtp_block() const { return config_.num_layers; }

  // Snapshot layout: the state rows a slot at (position, mtp position) logically holds, tensor by tensor.
  struct Section {
    const kernels::Tensor* tensor;
    std::vector<int64_t> rows;
  };
  std::vector<Section> snapshot_sections(int32_t slot, int64_t position, int64_t mtp_position) const;
  uint64_t shape_fingerprint() const;

  io::CheckpointFolder folder_;  // mapped weight bytes the host backends use in place
  Config config_;
  std::unique_ptr<kernels::Backend> backend_;
  ModelWeights weights_;
  std::unique_ptr<SlotStates> state_;
  std::unique_ptr<Forward> forward_;
  model::ModelInfo info_;
  ForwardTrace* trace_ = nullptr;
};

}  // namespace plumb::dsv4
