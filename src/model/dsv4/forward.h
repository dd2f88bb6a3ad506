// The DeepSeek-V4 forward over a launch of rows, written once against the kernels::Backend op interface
// (dsv4-forward.md sections 5-9): embedding into hc streams, blocks (mHC pre/post around attention and MoE), the
// hyper head and the vocabulary head. Prefill and decode are the same path: a launch is any list of rows, and each
// row reads only its own slot's state at its own position. Nothing here touches tensor elements.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/backend.h"
#include "model/dsv4/config.h"
#include "model/dsv4/slot_state.h"
#include "model/dsv4/weights.h"
#include "model/dsv4/workspace.h"

namespace plumb::dsv4 {

// Host metadata of a launch's rows, in launch order.
struct LaunchRows {
  std::vector<kernels::TokenRow> rows;  // slot, position
  std::vector<int64_t> positions;
  std::vector<int32_t> tokens;
  int64_t size() const { return int64_t(rows.size()); }
  void add(int32_t slot, int64_t position, int32_t token);
};

// What a forward chose, for comparisons with other implementations: per row and block the selected index rows and
// experts with the gap at their top-k boundary (+inf when nothing was left out), and optionally each block's output
// streams.
struct ChoiceRecord {
  int64_t block = 0;
  int32_t slot = 0;
  int64_t position = 0;
  double indexer_margin = 0, router_margin = 0;
  std::vector<int32_t> indexer_selected, experts;
};
struct ForwardTrace {
  std::vector<ChoiceRecord> choices;
  bool keep_streams = false;
  std::vector<std::vector<float>> block_streams;  // per main block: rows x (hc * hidden), launches appended
};

class Forward {
 public:
  Forward(const Config& config, const ModelWeights& weights, kernels::Backend& backend, SlotStates& state)
      : config_(config), weights_(weights), backend_(backend), state_(state), scratch_(backend) {}

  // The scratch of every step of this model (the model's own steps outside blocks take from it too).
  ScratchArena& scratch() { return scratch_; }

  void set_trace(ForwardTrace* trace) { trace_ = trace; }

  // Runs block b over the rows; x [N, hc * hidden] holds the streams and is replaced by the block's output
  // (spare is scratch of the same shape; the two are swapped).
  void block(int64_t b, const LaunchRows& rows, kernels::Tensor& x, kernels::Tensor& spare);
  // logits [N, vocab] = head(norm(hc_head(x))).
  void head(const HcWeights& hc, const Weight& norm, const kernels::Tensor& x, const kernels::Tensor& logits);

  kernels::HcParams hc_params() const;

 private:
  void attention(int64_t b, const LaunchRows& rows, kernels::Tensor& x, kernels::Tensor& spare);
  void moe(int64_t b, const LaunchRows& rows, kernels::Tensor& x, kernels::Tensor& spare);
  // Projects the rows into a compressor's ring and emits, normalized, rotated and rounded, the rows of every group
  // a row of the launch completes.
  void compress(const BlockSpec& spec, bool indexer, const CompressorWeights& w, CompressorState& st,
                const LaunchRows& rows, const kernels::Tensor& x, Workspace& ws);
  kernels::RopeParams rope_params(const BlockSpec& spec, int64_t head_dim) const;
  void record(const kernels::Tensor* selected, const kernels::Tensor* indexer_margin,
              const kernels::Tensor* experts, const kernels::Tensor* router_margin, int64_t rows);

  const Config& config_;
  const ModelWeights& weights_;
  kernels::Backend& backend_;
  SlotStates& state_;
  ForwardTrace* trace_ = nullptr;
  ScratchArena scratch_;
};

}  // namespace plumb::dsv4
