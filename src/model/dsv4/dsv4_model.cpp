// Opening a DeepSeek-V4 model, checking rows, the main forward launch and rewinding.
#include "model/dsv4/dsv4_model.h"

#include <numeric>

#include "base/error.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/device.h"
#include "model/dsv4/tensor_plan.h"

namespace plumb::dsv4 {
namespace {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t(0));
  return v;
}

}  // namespace

std::unique_ptr<Dsv4Model> Dsv4Model::open(const std::filesystem::path& dir, const Dsv4Options& options,
                                           const WeightProgress& progress) {
  io::CheckpointFolder folder = io::CheckpointFolder::open(dir);
  Config config = Config::from_json(folder.config(), (folder.dir() / "config.json").string());
  return std::unique_ptr<Dsv4Model>(new Dsv4Model(std::move(folder), std::move(config), options, progress));
}

Dsv4Model::Dsv4Model(io::CheckpointFolder folder, Config config, const Dsv4Options& options,
                     const WeightProgress& progress)
    : folder_(std::move(folder)), config_(std::move(config)) {
  const std::string where = folder_.dir().string();
  if (config_.num_mtp_layers > 1)
    fail("{}: {} MTP blocks; plumb drafts with one (num_nextn_predict_layers must be 0 or 1)", where,
         config_.num_mtp_layers);
  if (options.slots < 1) fail("slots must be at least 1 (got {})", options.slots);
  if (options.max_rows_per_slot < 1) fail("max_rows_per_slot must be at least 1 (got {})", options.max_rows_per_slot);
  const int64_t max_context = options.max_context > 0 ? options.max_context : config_.max_position_embeddings;
  if (max_context <= 0) fail("{}: config.json has no max_position_embeddings; give max_context", where);
  if (config_.max_position_embeddings > 0 && max_context > config_.max_position_embeddings)
    fail("max_context {} exceeds the model's max_position_embeddings ({})", max_context,
         config_.max_position_embeddings);

  const StateShape shape{.slots = options.slots,
                         .max_rows = options.max_rows_per_slot,
                         .max_context = max_context,
                         .window = config_.sliding_window};
  if (options.backend == "cuda") {
    if (options.numerics != kernels::Numerics::release) fail("the CUDA backend computes the release numerics only");
    backend_ = kernels::make_cuda_backend();
    // The memory plan: weights, state and a workspace margin must fit before anything is loaded.
    const uint64_t weights = weight_bytes(config_, plan_tensors(config_)).total;
    const uint64_t state = SlotStates::bytes_needed(config_, shape, dtype_size(backend_->act_dtype()));
    const uint64_t margin = uint64_t(2) << 30;
    const uint64_t free_bytes = cuda::device_free_bytes();
    if (weights + state + margin > free_bytes)
      fail("the model does not fit the GPU: weights {:.2f} GiB + state {:.2f} GiB ({} slots, context {}) + "
           "workspace {:.2f} GiB > {:.2f} GiB free; use fewer --parallel slots or a shorter --max-context",
           double(weights) / (1 << 30), double(state) / (1 << 30), options.slots, max_context,
           double(margin) / (1 << 30), double(free_bytes) / (1 << 30));
  } else {
    backend_ = kernels::make_host_backend(options.numerics);
  }
  if (options.record_ops) backend_ = kernels::make_recording_backend(std::move(backend_), options.record_ops);
  if (options.op_observer) backend_ = kernels::make_observed_backend(std::move(backend_), *options.op_observer);
  // Outermost, so that it checks every op the forward issues (an observer above may throw before the op runs).
  if (options.check_lanes) backend_ = kernels::make_lane_check_backend(std::move(backend_), options.check_lanes);
  weights_ = load_weights(folder_, config_, *backend_, progress);
  state_ = std::make_unique<SlotStates>(config_, shape, *backend_);
  forward_ = std::make_unique<Forward>(config_, weights_, *backend_, *state_);
  forward_->scratch().set_poison(options.poison_scratch);
  info_ = {.name = options.name,
           .vocab_size = int32_t(config_.vocab_size),
           .max_context = max_context,
           .num_slots = options.slots,
           .max_rows_per_slot = options.max_rows_per_slot,
           .has_mtp = config_.num_mtp_layers > 0};
}

void Dsv4Model::check_slot(int32_t slot, const char* what) const {
  if (slot < 0 || slot >= info_.num_slots)
    fail("{}: slot {} does not exist (the model holds slots 0..{})", what, slot, info_.num_slots - 1);
}

void Dsv4Model::reset_slot(int32_t slot) {
  check_slot(slot, "reset_slot");
  state_->reset(slot);
}

int64_t Dsv4Model::slot_position(int32_t slot) const {
  check_slot(slot, "slot_position");
  return state_->meta(slot).position;
}

void Dsv4Model::check_rows(std::span<const model::Row> rows, std::span<float> logits) const {
  if (logits.size() < rows.size() * size_t(info_.vocab_size))
    fail("forward: logits hold {} floats, {} rows need {}", logits.size(), rows.size(),
         rows.size() * size_t(info_.vocab_size));
  std::vector<int64_t> next(size_t(info_.num_slots)), count(size_t(info_.num_slots), 0);
  for (int32_t s = 0; s < info_.num_slots; ++s) next[size_t(s)] = state_->meta(s).position;
  for (size_t i = 0; i < rows.size(); ++i) {
    const model::Row& r = rows[i];
    check_slot(r.slot, "forward");
    if (r.token < 0 || r.token >= info_.vocab_size)
      fail("forward: row {} has token id {}, outside the vocabulary (0..{})", i, r.token, info_.vocab_size - 1);
    if (r.position >= info_.max_context)
      fail("forward: row {} is at position {}, past the context (max_context {})", i, r.position, info_.max_context);
    if (r.position != next[size_t(r.slot)])
      fail("forward: row {} of slot {} is at position {}, but the slot continues at {} (a slot's rows must be "
           "consecutive from its position)", i, r.slot, r.position, next[size_t(r.slot)]);
    ++next[size_t(r.slot)];
    if (++count[size_t(r.slot)] > info_.max_rows_per_slot)
      fail("forward: slot {} has more than max_rows_per_slot ({}) rows in one launch", r.slot,
           info_.max_rows_per_slot);
  }
}

void Dsv4Model::write_logits(const kernels::Tensor& x, std::span<const int64_t> rows, const HcWeights& hc,
                             const Weight& norm, std::span<float> logits) {
  if (rows.empty()) return;
  Workspace ws(forward_->scratch());
  const int64_t m = int64_t(rows.size()), vocab = info_.vocab_size;
  const kernels::Tensor picked = ws.act(m, x.cols), out = ws.act(m, vocab);
  backend_->copy_rows(x, rows, picked, iota(m));
  forward_->head(hc, norm, picked, out);
  std::vector<float> host(size_t(m * vocab));
  backend_->download_f32(out, host.data());
  for (int64_t i = 0; i < m; ++i)
    std::copy_n(host.begin() + i * vocab, vocab, logits.begin() + rows[size_t(i)] * vocab);
}

void Dsv4Model::forward(std::span<const model::Row> rows, std::span<float> logits) {
  check_rows(rows, logits);
  if (rows.empty()) return;
  LaunchRows launch;
  for (const model::Row& r : rows) launch.add(r.slot, r.position, r.token);
  backend_->join_lanes();  // a round that threw inside a sublayer may have left side lanes unjoined (else a no-op)
  Workspace ws(forward_->scratch());
  const int64_t n = launch.size(), streams = config_.hc_mult * config_.hidden_size;
  kernels::Tensor x = ws.act(n, streams), spare = ws.act(n, streams);
  backend_->embed(weights_.embed, launch.tokens, config_.hc_mult, x);
  forward_->set_trace(trace_);
  for (int64_t b = 0; b < config_.num_layers; ++b) forward_->block(b, launch, x, spare);
  forward_->set_trace(nullptr);

  // The final streams of every row stay for the MTP head's catch-up rows.
  std::vector<int64_t> x_rows, wanted;
  for (int64_t i = 0; i < n; ++i) {
    x_rows.push_back(state_->x_row(rows[size_t(i)].slot, rows[size_t(i)].position));
    if (rows[size_t(i)].want_logits) wanted.push_back(i);
  }
  backend_->copy_rows(x, iota(n), state_->x_ring(), x_rows);
  write_logits(x, wanted, weights_.hc_head, weights_.norm, logits);
  for (const model::Row& r : rows) {
    SlotMeta& m = state_->meta(r.slot);
    m.x_tag[size_t(r.position % state_->shape().x_ring_rows())] = r.position;
    m.position = r.position + 1;
  }
}

void Dsv4Model::rewind(int32_t slot, int64_t position) {
  check_slot(slot, "rewind");
  SlotMeta& m = state_->meta(slot);
  const int64_t reach = std::max(m.rewind_floor, m.position - info_.max_rows_per_slot);
  if (position < reach || position > m.position)
    fail("rewind: slot {} is at position {} and can go back to positions {}..{}, not {} (older states need a "
         "snapshot)", slot, m.position, reach, m.position, position);
  m.position = position;
  m.mtp_position = std::min(m.mtp_position, position);
  if (m.draft_position > position - 1) m.draft_position = -1;
}

}  // namespace plumb::dsv4
