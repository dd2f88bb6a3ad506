// The lane checker (lane_check_backend.h): each op's bytes read and written, and whether it follows every earlier op
// that touched them. Its direct predecessors are LaneOrder's (lane_order.h), as in the CUDA graph; vector clocks
// carry them on: an op's clock is the largest of its predecessors' with its own lane's count raised, and op A
// precedes op B when B's clock has reached A's count on A's lane.
#include "kernels/lane_check_backend.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "base/dtype.h"
#include "kernels/lane_order.h"

namespace plumb::kernels {
namespace {

constexpr size_t kMaxHazards = 64;  // enough to see the pattern

struct Range {
  uintptr_t begin = 0, end = 0;
};
using Clock = std::array<uint32_t, kLanes>;

struct Op {
  const char* name;
  int lane;
  Clock clock;
  std::vector<Range> reads, writes;
};

// The bytes a tensor view spans (its rows' columns and the stride between them).
Range span_of(const Tensor& t) {
  if (t.rows <= 0 || t.cols <= 0) return {};
  const uintptr_t at = reinterpret_cast<uintptr_t>(t.data), size = dtype_size(t.dtype);
  return {at, at + uintptr_t((t.rows - 1) * t.stride + t.cols) * size};
}
// The bytes of the listed rows only (copy_rows touches those).
std::vector<Range> rows_of(const Tensor& t, std::span<const int64_t> rows) {
  std::vector<Range> out;
  const uintptr_t at = reinterpret_cast<uintptr_t>(t.data), size = dtype_size(t.dtype);
  for (int64_t r : rows)
    out.push_back({at + uintptr_t(r * t.stride) * size, at + uintptr_t(r * t.stride + t.cols) * size});
  return out;
}
bool overlap(const std::vector<Range>& a, const std::vector<Range>& b) {
  for (const Range& x : a)
    for (const Range& y : b)
      if (x.begin < y.end && y.begin < x.end && x.begin < x.end && y.begin < y.end) return true;
  return false;
}

class LaneCheckBackend final : public Backend {
 public:
  LaneCheckBackend(std::unique_ptr<Backend> inner, LaneReport* report) : inner_(std::move(inner)), report_(*report) {}

  const char* name() const override { return inner_->name(); }
  Numerics numerics() const override { return inner_->numerics(); }
  DType act_dtype() const override { return inner_->act_dtype(); }
  Buffer allocate(size_t bytes) override { return inner_->allocate(bytes); }
  Weight upload_weight(const Weight& host) override { return inner_->upload_weight(host); }
  void download(const Tensor& src, void* host) override {
    barrier();
    inner_->download(src, host);
  }
  void upload(const void* host, const Tensor& dst) override {
    barrier();
    inner_->upload(host, dst);
  }
  void download_f32(const Tensor& src, float* host) override {
    barrier();
    inner_->download_f32(src, host);
  }
  void copy_rows(const Tensor& src, std::span<const int64_t> src_rows, const Tensor& dst,
                 std::span<const int64_t> dst_rows) override {
    check_ranges("copy_rows", rows_of(src, src_rows), rows_of(dst, dst_rows));
    inner_->copy_rows(src, src_rows, dst, dst_rows);
  }
  void synchronize() override {
    barrier();
    inner_->synchronize();
  }
  std::string launch_summary() const override { return inner_->launch_summary(); }

  void begin_lane(int lane) override {
    order_.begin_lane(lane);
    inner_->begin_lane(lane);
  }
  void end_lane() override {
    order_.end_lane();
    inner_->end_lane();
  }
  void join_lanes() override {
    order_.join_lanes();
    inner_->join_lanes();
  }

  void embed(const Weight& table, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) override {
    check("embed", {}, {out});
    inner_->embed(table, tokens, copies, out);
  }
  void linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    check("linear", {x}, {y});
    inner_->linear(p, w, x, y);
  }
  void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    check("rms_norm", {x}, {y});
    inner_->rms_norm(p, w, x, y);
  }
  void head_rms_norm(HeadNormParams p, const Tensor& x) override {
    check("head_rms_norm", {x}, {x});
    inner_->head_rms_norm(p, x);
  }
  void rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) override {
    check("rope", {x}, {x});
    inner_->rope(p, positions, x);
  }
  void quant_sim(QuantSimParams p, const Tensor& x) override {
    check("quant_sim", {x}, {x});
    inner_->quant_sim(p, x);
  }
  void hadamard(HadamardParams p, const Tensor& x) override {
    check("hadamard", {x}, {x});
    inner_->hadamard(p, x);
  }
  void hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
              const Tensor& comb) override {
    check("hc_pre", {x}, {y, post, comb});
    inner_->hc_pre(p, w, x, y, post, comb);
  }
  void hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
               const Tensor& out) override {
    check("hc_post", {f, x, post, comb}, {out});
    inner_->hc_post(p, f, x, post, comb, out);
  }
  void hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) override {
    check("hc_head", {x}, {y});
    inner_->hc_head(p, w, x, y);
  }
  void compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                        const Tensor& x, const Tensor& kv, const Tensor& score) override {
    check("compress_project", {x}, {kv, score});
    inner_->compress_project(p, w, positions, x, kv, score);
  }
  void compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                     std::span<const CompressRow> rows, const Tensor& out) override {
    check("compress_pool", {kv_ring, score_ring}, {out});
    inner_->compress_pool(p, kv_ring, score_ring, rows, out);
  }
  void indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                    std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) override {
    check("indexer_topk", {q, w, index_rows}, margin ? std::vector<Tensor>{selected, *margin} : std::vector{selected});
    inner_->indexer_topk(p, q, w, index_rows, rows, selected, margin);
  }
  void attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                 const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                 const Tensor& out) override {
    const std::vector<Tensor> reads =
        selected ? std::vector<Tensor>{q, ring, compressed, *selected} : std::vector<Tensor>{q, ring, compressed};
    check("attention", reads, {out});
    inner_->attention(p, q, ring, compressed, selected, sinks, rows, out);
  }
  void route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
             const Tensor& ids, const Tensor& weights, const Tensor* margin) override {
    check("route", {x}, margin ? std::vector<Tensor>{ids, weights, *margin} : std::vector{ids, weights});
    inner_->route(p, w, x, tokens, ids, weights, margin);
  }
  void routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x, const Tensor& ids,
                      const Tensor& weights, const Tensor& out) override {
    check("routed_experts", {x, ids, weights}, {out});
    inner_->routed_experts(p, experts, x, ids, weights, out);
  }
  void shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) override {
    check("shared_expert", {x}, {out});
    inner_->shared_expert(p, w, x, out);
  }
  void add(const Tensor& a, const Tensor& b, const Tensor& out) override {
    check("add", {a, b}, {out});
    inner_->add(a, b, out);
  }

 private:
  static std::vector<Range> spans(const std::vector<Tensor>& ts) {
    std::vector<Range> out;
    for (const Tensor& t : ts) out.push_back(span_of(t));
    return out;
  }
  void check(const char* name, const std::vector<Tensor>& reads, const std::vector<Tensor>& writes) {
    check_ranges(name, spans(reads), spans(writes));
  }

  // Records the op with its predecessors, then compares it with every earlier op it does not follow.
  void check_ranges(const char* name, std::vector<Range> reads, std::vector<Range> writes) {
    const int lane = order_.lane();
    Op op{name, lane, {}, std::move(reads), std::move(writes)};
    const Follows f = order_.next(int32_t(ops_.size()));
    const auto follow = [&](int32_t b) {
      if (b >= 0)
        for (size_t l = 0; l < size_t(kLanes); ++l) op.clock[l] = std::max(op.clock[l], ops_[size_t(b)].clock[l]);
    };
    follow(f.after);
    for (int32_t b : f.also) follow(b);
    op.clock[size_t(lane)] = ++count_[size_t(lane)];
    for (const Op& a : ops_) {
      if (a.clock[size_t(a.lane)] <= op.clock[size_t(a.lane)]) continue;  // op follows a
      const char* what = overlap(a.writes, op.writes)  ? "both write"
                         : overlap(a.writes, op.reads) ? "reads what the earlier writes"
                         : overlap(a.reads, op.writes) ? "writes what the earlier reads"
                                                       : nullptr;
      if (what && report_.hazards.size() < kMaxHazards)
        report_.hazards.push_back(std::string(op.name) + " (lane " + std::to_string(op.lane) + ") " + what + ": " +
                                  a.name + " (lane " + std::to_string(a.lane) + "), which it does not follow");
    }
    ++report_.ops[size_t(lane)];
    ops_.push_back(std::move(op));
  }

  // Everything so far has finished (the CUDA backend flushes and waits here).
  void barrier() {
    ops_.clear();
    order_.clear();
  }

  std::unique_ptr<Backend> inner_;
  LaneReport& report_;
  std::vector<Op> ops_;  // since the last barrier, numbered as order_ numbers them
  LaneOrder order_;
  Clock count_{};
};

}  // namespace

std::unique_ptr<Backend> make_lane_check_backend(std::unique_ptr<Backend> inner, LaneReport* report) {
  return std::make_unique<LaneCheckBackend>(std::move(inner), report);
}

}  // namespace plumb::kernels
