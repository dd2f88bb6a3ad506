// The layer cells of `plumb synth`: a config of one block per kind, synthetic weights, slot state and Forward; then
// per kind and shape a traced untimed pass over the prepared inputs (floor bytes) and the timed calls.
#include "bench/synth_layers.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "base/error.h"
#include "base/rng.h"
#include "bench/stats.h"
#include "kernels/op_timer.h"
#include "model/dsv4/forward.h"
#include "model/dsv4/slot_state.h"
#include "model/dsv4/synthetic_weights.h"

namespace plumb::bench {
namespace {

using dsv4::BlockSpec;
using kernels::Weight;

constexpr int kInputs = 8;         // prepared inputs per cell, cycled by the timed calls
constexpr int64_t kSlots = 4;      // the state's slots and the width of the slots cell
constexpr int64_t kMinRows = 16;   // rows per slot the state holds at least (a served launch's bound)
constexpr int64_t kContextMargin = 64;

uint64_t weight_bytes(const Weight& w) { return w.present() ? w.data_bytes() + w.scale_bytes() : 0; }
uint64_t hc_bytes(const kernels::HcWeights& h) { return weight_bytes(h.fn) + weight_bytes(h.base) + weight_bytes(h.scale); }
uint64_t compressor_bytes(const kernels::CompressorWeights& c) {
  return weight_bytes(c.wkv) + weight_bytes(c.wgate) + weight_bytes(c.ape) + weight_bytes(c.norm);
}

int64_t round_up(int64_t v, int64_t multiple) { return (v + multiple - 1) / multiple * multiple; }

// Streams of `rows` rows drawn uniform in [-1, 1), in the backend's activation dtype.
std::vector<std::byte> random_streams(int64_t rows, int64_t cols, DType dtype, uint64_t seed, uint32_t stream) {
  const size_t n = size_t(rows * cols), size = dtype_size(dtype);
  if (dtype != DType::dtype_f32 && dtype != DType::dtype_f64)
    fail("plumb synth: the backend's activations are {}; float32 or float64 expected", dtype_name(dtype));
  std::vector<std::byte> out(n * size);
  for (size_t i = 0; i < n; ++i) {
    const double v = 2.0 * keyed_uniform(seed, i, stream) - 1.0;
    if (dtype == DType::dtype_f32) {
      const float f = float(v);
      std::memcpy(out.data() + i * size, &f, size);
    } else {
      std::memcpy(out.data() + i * size, &v, size);
    }
  }
  return out;
}

class LayerBench {
 public:
  LayerBench(const dsv4::Config& config, kernels::Backend& backend, const LayerBenchOptions& o)
      : options_(o), backend_(backend), kinds_(layer_kinds(config)), config_(config) {
    for (const BlockSpec& b : config.blocks)
      if (!b.mtp) layer_order_.push_back(kind_of(b));
    config_.num_layers = int64_t(kinds_.size());
    config_.num_mtp_layers = 0;
    config_.blocks.clear();
    for (const LayerKind& k : kinds_) config_.blocks.push_back(k.spec);

    say(fmt::format("layers: {} kinds, synthetic weights with {} distinct experts", kinds_.size(),
                    o.distinct_experts == 0 ? config.n_routed_experts : o.distinct_experts));
    synthetic_ = std::make_unique<dsv4::SyntheticWeights>(config_, o.seed, o.distinct_experts, percent("generating"));
    weights_ = dsv4::build_weights(synthetic_->lookup(), config_, backend_, percent("uploading"),
                                   dsv4::VocabTables::skip);

    int64_t max_rows = kMinRows, largest_ratio = 1;
    for (int n : o.rows) max_rows = std::max<int64_t>(max_rows, n);
    for (const BlockSpec& b : config_.blocks) largest_ratio = std::max<int64_t>(largest_ratio, b.compress_ratio);
    const dsv4::StateShape shape{
        .slots = kSlots,
        .max_rows = max_rows,
        .max_context = round_up(o.context + std::max(kContextMargin, max_rows), largest_ratio),
        .window = config_.sliding_window};
    state_ = std::make_unique<dsv4::SlotStates>(config_, shape, backend_);
    forward_ = std::make_unique<dsv4::Forward>(config_, weights_, backend_, *state_);
    // The traced calls go through the op timer: each dispatch class's time per call, ops synchronized one by one.
    timed_backend_ = kernels::make_observed_backend(backend_, timer_);
    timed_forward_ = std::make_unique<dsv4::Forward>(config_, weights_, *timed_backend_, *state_);

    const int64_t streams = config_.hc_mult * config_.hidden_size;
    x_rows_ = std::max(max_rows, kSlots);
    for (int i = 0; i < kInputs; ++i)
      x_host_.push_back(random_streams(x_rows_, streams, backend_.act_dtype(), o.seed, uint32_t(i)));
    const size_t x_bytes = size_t(x_rows_ * streams) * dtype_size(backend_.act_dtype());
    x_ = backend_.allocate(x_bytes);
    spare_ = backend_.allocate(x_bytes);
    make_same_router();
  }

  LayerBenchResult run() {
    LayerBenchResult r;
    r.kinds = kinds_;
    r.distinct_experts = synthetic_->distinct_experts();
    r.experts_per_token = config_.experts_per_token;
    r.host_weight_bytes = synthetic_->host_bytes();
    for (size_t k = 0; k < kinds_.size(); ++k) {
      say(fmt::format("layers: timing {} ({} of {})", kinds_[k].label(), k + 1, kinds_.size()));
      for (Routing routing : {Routing::as_drawn, Routing::same_experts}) {
        for (int n : options_.rows) r.cells.push_back(time_cell(k, 1, n, routing));
        r.cells.push_back(time_cell(k, kSlots, 1, routing));
      }
    }
    add_rounds(r);
    add_one_flush_rounds(r);
    r.op_table = timer_.table();
    return r;
  }

 private:
  void say(const std::string& line) const {
    if (options_.say) options_.say(line);
  }
  // Progress lines at every 10% of a long step.
  dsv4::WeightProgress percent(const std::string& what) {
    auto last = std::make_shared<int64_t>(-1);
    return [this, what, last](int64_t done, int64_t total, const std::string&) {
      const int64_t tenth = total > 0 ? done * 10 / total : 10;
      if (tenth == *last) return;
      *last = tenth;
      say(fmt::format("layers: {} weights {}%", what, tenth * 10));
    };
  }

  // Top-k layers' "same experts" router: a zero gate scores every expert alike, the bias picks experts 0..k-1.
  void make_same_router() {
    const int64_t experts = config_.n_routed_experts, k = config_.experts_per_token;
    zero_gate_.assign(size_t(experts * config_.hidden_size) * 2, std::byte{0});
    same_bias_.assign(size_t(experts), 0.0f);
    std::fill(same_bias_.begin(), same_bias_.begin() + k, 1.0f);
    same_router_.gate = backend_.upload_weight(
        {.format = kernels::WeightFormat::bf16, .rows = experts, .cols = config_.hidden_size, .data = zero_gate_.data()});
    same_router_.bias =
        backend_.upload_weight({.format = kernels::WeightFormat::f32, .rows = 1, .cols = experts, .data = same_bias_.data()});
  }

  // Hash layers' "same experts" token: the first whose table row reads k distinct expert buffers.
  int32_t same_token(int64_t b) const {
    const dsv4::TensorBytes table = synthetic_->at(config_.block_prefix(b) + "ffn.gate.tid2eid");
    const int64_t k = config_.experts_per_token;
    for (int64_t t = 0; t < config_.vocab_size; ++t) {
      std::set<int64_t> buffers;
      for (int64_t i = 0; i < k; ++i) {
        int64_t e;
        std::memcpy(&e, table.bytes.data() + size_t(t * k + i) * 8, 8);
        buffers.insert(synthetic_->expert_buffer(e));
      }
      if (int64_t(buffers.size()) == k) return int32_t(t);
    }
    fail("plumb synth: no token of block {}'s hash table reads {} distinct expert buffers; raise --distinct-experts",
         b, k);
  }

  std::vector<dsv4::LaunchRows> inputs(size_t kind, int64_t slots, int64_t per_slot, Routing routing) const {
    const bool hash = config_.blocks[kind].hash_routed;
    const int32_t fixed = routing == Routing::same_experts && hash ? same_token(int64_t(kind)) : -1;
    std::vector<dsv4::LaunchRows> launches(kInputs);
    for (int i = 0; i < kInputs; ++i)
      for (int64_t s = 0; s < slots; ++s)
        for (int64_t j = 0; j < per_slot; ++j) {
          const uint64_t draw = uint64_t((i * slots + s) * per_slot + j);
          const auto token = int32_t(keyed_uniform(options_.seed, draw, uint32_t(1000 + kind)) * double(config_.vocab_size));
          launches[size_t(i)].add(int32_t(s), options_.context + j, fixed >= 0 ? fixed : token);
        }
    return launches;
  }

  kernels::Tensor restore_input(int i, int64_t rows) {
    const kernels::Tensor x = x_.tensor(backend_.act_dtype(), rows, config_.hc_mult * config_.hidden_size);
    backend_.upload(x_host_[size_t(i)].data(), x);
    return x;
  }

  LayerCell time_cell(size_t kind, int64_t slots, int64_t per_slot, Routing routing) {
    const int64_t b = int64_t(kind), n = slots * per_slot;
    dsv4::BlockWeights& block = weights_.blocks[kind];
    const kernels::RouterWeights drawn_router = block.router;
    const bool swap_router = routing == Routing::same_experts && !config_.blocks[kind].hash_routed;
    if (swap_router) block.router = same_router_;
    const std::vector<dsv4::LaunchRows> launches = inputs(kind, slots, per_slot, routing);
    const kernels::Tensor spare = spare_.tensor(backend_.act_dtype(), n, config_.hc_mult * config_.hidden_size);

    LayerCell cell{.kind = kind, .slots = slots, .rows_per_slot = per_slot, .routing = routing};
    const double fixed = double(block_weight_bytes_without_experts(block));
    const double expert = double(expert_weight_bytes(block.experts.at(0)));
    timer_.take_classes();
    for (int i = 0; i < kInputs; ++i) {
      kernels::Tensor x = restore_input(i, n), s = spare;
      dsv4::ForwardTrace trace;
      timed_forward_->set_trace(&trace);
      timed_forward_->block(b, launches[size_t(i)], x, s);
      timed_forward_->set_trace(nullptr);
      std::set<int64_t> buffers;
      for (const dsv4::ChoiceRecord& c : trace.choices)
        for (int32_t e : c.experts) buffers.insert(synthetic_->expert_buffer(e));
      cell.expert_buffers += double(buffers.size()) / kInputs;
      cell.bytes += (fixed + double(buffers.size()) * expert) / kInputs;
    }

    const auto classes = timer_.take_classes();
    for (size_t c = 0; c < classes.size(); ++c) cell.class_seconds[c] = classes[c] / kInputs;

    std::vector<double> times, host_times;
    using Clock = std::chrono::steady_clock;
    for (int r = 0; r < options_.repeats; ++r) {
      kernels::Tensor x = restore_input(r % kInputs, n), s = spare;
      backend_.synchronize();
      const auto t0 = Clock::now();
      forward_->block(b, launches[size_t(r % kInputs)], x, s);
      const auto queued = Clock::now();  // an asynchronous backend returns once its launches are queued
      backend_.synchronize();
      host_times.push_back(std::chrono::duration<double>(queued - t0).count());
      times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    cell.host_seconds = *median(host_times);
    block.router = drawn_router;
    cell.seconds = *median(times);
    cell.floor_seconds = cell.bytes / options_.bandwidth;
    return cell;
  }

  void add_rounds(LayerBenchResult& r) const {
    for (const LayerCell& c : r.cells) {
      if (c.kind != 0) continue;  // one round per shape and routing; every kind has the same cells
      RoundCell round{.slots = c.slots, .rows_per_slot = c.rows_per_slot, .routing = c.routing};
      for (const LayerCell& k : r.cells) {
        if (k.slots != c.slots || k.rows_per_slot != c.rows_per_slot || k.routing != c.routing) continue;
        const double count = double(kinds_[k.kind].main_layers);
        round.layers += kinds_[k.kind].main_layers;
        round.seconds += count * k.seconds;
        round.bytes += count * k.bytes;
      }
      round.floor_seconds = round.bytes / options_.bandwidth;
      r.rounds.push_back(round);
    }
  }

  size_t kind_of(const BlockSpec& b) const {
    for (size_t k = 0; k < kinds_.size(); ++k)
      if (kinds_[k].spec.compress_ratio == b.compress_ratio && kinds_[k].spec.hash_routed == b.hash_routed) return k;
    fail("plumb synth: a block of no layer kind");
  }

  // Each summed round again as one flush: every main layer in order, one synchronize. The first two calls are not
  // timed (a LaunchQueue launches a new flush shape directly, then builds its graph); each call starts from the
  // first prepared input.
  void add_one_flush_rounds(LayerBenchResult& r) {
    const size_t summed = r.rounds.size();
    for (size_t i = 0; i < summed; ++i) {
      RoundCell c = r.rounds[i];
      say(fmt::format("layers: the round in one flush, {} x {} rows, {}", c.slots, c.rows_per_slot,
                      routing_label(c.routing, config_.experts_per_token)));
      c.seconds = time_one_flush_round(c.slots, c.rows_per_slot, c.routing);
      c.one_flush = true;
      r.rounds.push_back(c);
    }
  }

  double time_one_flush_round(int64_t slots, int64_t per_slot, Routing routing) {
    const int64_t n = slots * per_slot;
    std::vector<dsv4::LaunchRows> rows;
    std::vector<kernels::RouterWeights> drawn;
    for (size_t k = 0; k < kinds_.size(); ++k) {
      rows.push_back(inputs(k, slots, per_slot, routing)[0]);
      drawn.push_back(weights_.blocks[k].router);
      if (routing == Routing::same_experts && !config_.blocks[k].hash_routed) weights_.blocks[k].router = same_router_;
    }
    const kernels::Tensor spare = spare_.tensor(backend_.act_dtype(), n, config_.hc_mult * config_.hidden_size);
    std::vector<double> times;
    using Clock = std::chrono::steady_clock;
    for (int r = 0; r < options_.repeats + 2; ++r) {
      kernels::Tensor x = restore_input(0, n), s = spare;
      backend_.synchronize();
      const auto t0 = Clock::now();
      for (size_t k : layer_order_) forward_->block(int64_t(k), rows[k], x, s);
      backend_.synchronize();
      if (r >= 2) times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    for (size_t k = 0; k < kinds_.size(); ++k) weights_.blocks[k].router = drawn[k];
    return *median(times);
  }

  const LayerBenchOptions& options_;
  kernels::Backend& backend_;
  std::vector<LayerKind> kinds_;
  std::vector<size_t> layer_order_;  // the config's main layers as kinds, in order
  dsv4::Config config_;  // one main block per kind
  std::unique_ptr<dsv4::SyntheticWeights> synthetic_;
  dsv4::ModelWeights weights_;
  std::unique_ptr<dsv4::SlotStates> state_;
  std::unique_ptr<dsv4::Forward> forward_;
  kernels::OpTimer timer_;
  std::unique_ptr<kernels::Backend> timed_backend_;  // backend_ observed by timer_
  std::unique_ptr<dsv4::Forward> timed_forward_;      // the untimed traced calls, through timed_backend_
  int64_t x_rows_ = 0;
  std::vector<std::vector<std::byte>> x_host_;  // kInputs streams of x_rows_ rows
  kernels::Buffer x_, spare_;
  std::vector<std::byte> zero_gate_;  // host bytes of the same-experts router (host backends use them in place)
  std::vector<float> same_bias_;
  kernels::RouterWeights same_router_;
};

}  // namespace

std::string LayerKind::label() const {
  const char* attention = dsv4::attention_kind_name(spec.attention);
  const char* routing = spec.hash_routed ? "hash" : "top-k";
  if (spec.compress_ratio == 0) return fmt::format("{} {}", attention, routing);
  return fmt::format("{}/{} {}", attention, spec.compress_ratio, routing);
}

std::vector<LayerKind> layer_kinds(const dsv4::Config& config) {
  std::vector<LayerKind> kinds;
  for (const BlockSpec& b : config.blocks) {
    BlockSpec spec = b;
    spec.mtp = false;
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const LayerKind& k) {
      return k.spec.compress_ratio == spec.compress_ratio && k.spec.hash_routed == spec.hash_routed;
    });
    if (it == kinds.end()) it = kinds.insert(kinds.end(), LayerKind{.spec = spec});
    ++(b.mtp ? it->mtp_blocks : it->main_layers);
  }
  return kinds;
}

uint64_t block_weight_bytes_without_experts(const dsv4::BlockWeights& b) {
  const dsv4::AttentionWeights& a = b.attn;
  uint64_t n = hc_bytes(b.hc_attn) + hc_bytes(b.hc_ffn) + compressor_bytes(a.compressor) +
               compressor_bytes(a.index_compressor);
  for (const Weight* w : {&b.attn_norm, &b.ffn_norm, &a.wq_a, &a.q_norm, &a.wq_b, &a.wkv, &a.kv_norm, &a.wo_a,
                          &a.wo_b, &a.sinks, &a.index_wq_b, &a.index_weights_proj, &b.router.gate, &b.router.bias,
                          &b.shared.w1, &b.shared.w2, &b.shared.w3})
    n += weight_bytes(*w);
  return n;
}

uint64_t expert_weight_bytes(const kernels::ExpertWeights& e) {
  return weight_bytes(e.w1) + weight_bytes(e.w2) + weight_bytes(e.w3);
}

std::string routing_label(Routing routing, int64_t experts_per_token) {
  return routing == Routing::as_drawn ? "as drawn" : fmt::format("same {}", experts_per_token);
}

void check_rows_and_repeats(const std::vector<int>& rows, int repeats) {
  if (rows.empty()) fail("plumb synth: --rows needs at least one row count");
  for (int n : rows)
    if (n < 1) fail("plumb synth: --rows {}: row counts must be at least 1", n);
  if (repeats < 1) fail("plumb synth: --repeats must be at least 1 (got {})", repeats);
}

LayerBenchResult run_layer_bench(const dsv4::Config& config, kernels::Backend& backend,
                                 const LayerBenchOptions& options) {
  check_rows_and_repeats(options.rows, options.repeats);
  if (options.context < 0) fail("plumb synth: --context must not be negative (got {})", options.context);
  if (!(options.bandwidth > 0)) fail("plumb synth: the copy bandwidth must be positive (got {})", options.bandwidth);
  if (options.distinct_experts != 0 && options.distinct_experts < config.experts_per_token)
    fail("plumb synth: --distinct-experts {} is below the experts per token ({}): the same-experts cells read {} "
         "distinct buffers", options.distinct_experts, config.experts_per_token, config.experts_per_token);
  return LayerBench(config, backend, options).run();
}

}  // namespace plumb::bench
