// The observed backend: each op forwards to the inner backend between the observer's begin() and end(), after
// accesses(); memory ops tell host_sync() where they wait for the device, and lane hints pass through.
#include "kernels/observed_backend.h"

namespace plumb::kernels {
namespace {

class ObservedBackend final : public Backend {
 public:
  ObservedBackend(std::unique_ptr<Backend> owned, Backend& inner, std::unique_ptr<OpObserver> owned_observer,
                  OpObserver& observer)
      : owned_(std::move(owned)), owned_observer_(std::move(owned_observer)), inner_(inner), observer_(observer) {}

  const char* name() const override { return inner_.name(); }
  Numerics numerics() const override { return inner_.numerics(); }
  DType act_dtype() const override { return inner_.act_dtype(); }
  Buffer allocate(size_t bytes) override { return inner_.allocate(bytes); }
  Weight upload_weight(const Weight& host) override { return inner_.upload_weight(host); }
  void download(const Tensor& src, void* host) override {
    observer_.host_sync();
    inner_.download(src, host);
  }
  void upload(const void* host, const Tensor& dst) override {
    observer_.host_sync();
    inner_.upload(host, dst);
  }
  void download_f32(const Tensor& src, float* host) override {
    observer_.host_sync();
    inner_.download_f32(src, host);
  }
  void copy_rows(const Tensor& src, std::span<const int64_t> src_rows, const Tensor& dst,
                 std::span<const int64_t> dst_rows) override {
    observer_.accesses("copy_rows", {.src = &src, .src_rows = src_rows, .dst = &dst, .dst_rows = dst_rows});
    observer_.begin(inner_, "copy_rows", nullptr);
    inner_.copy_rows(src, src_rows, dst, dst_rows);
    observer_.end(inner_, "copy_rows", {});
  }
  void synchronize() override {
    observer_.host_sync();
    inner_.synchronize();
  }
  std::string launch_summary() const override { return inner_.launch_summary(); }
  void begin_lane(int lane) override {
    observer_.lane_hint(LaneHint::begin, lane);
    inner_.begin_lane(lane);
  }
  void end_lane() override {
    observer_.lane_hint(LaneHint::end, 0);
    inner_.end_lane();
  }
  void join_lanes() override {
    observer_.lane_hint(LaneHint::join, 0);
    inner_.join_lanes();
  }

  void embed(const Weight& table, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) override {
    observer_.accesses("embed", {{}, {&out}});
    observer_.begin(inner_, "embed", nullptr);
    inner_.embed(table, tokens, copies, out);
    observer_.end(inner_, "embed", {{"out", &out}});
  }
  void linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    const LinearDetail detail{&p, &w};
    observer_.accesses("linear", {{&x}, {&y}});
    observer_.begin(inner_, "linear", &detail);
    inner_.linear(p, w, x, y);
    observer_.end(inner_, "linear", {{"y", &y}});
  }
  void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    observer_.accesses("rms_norm", {{&x}, {&y}});
    observer_.begin(inner_, "rms_norm", nullptr);
    inner_.rms_norm(p, w, x, y);
    observer_.end(inner_, "rms_norm", {{"y", &y}});
  }
  void head_rms_norm(HeadNormParams p, const Tensor& x) override {
    observer_.accesses("head_rms_norm", {{&x}, {&x}});
    observer_.begin(inner_, "head_rms_norm", nullptr);
    inner_.head_rms_norm(p, x);
    observer_.end(inner_, "head_rms_norm", {{"x", &x}});
  }
  void rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) override {
    observer_.accesses("rope", {{&x}, {&x}});
    observer_.begin(inner_, "rope", nullptr);
    inner_.rope(p, positions, x);
    observer_.end(inner_, "rope", {{"x", &x}});
  }
  void head_rms_norm_rope(HeadNormParams n, RopeParams r, std::span<const int64_t> positions,
                          const Tensor& x) override {
    observer_.accesses("head_rms_norm_rope", {{&x}, {&x}});
    observer_.begin(inner_, "head_rms_norm_rope", nullptr);
    inner_.head_rms_norm_rope(n, r, positions, x);
    observer_.end(inner_, "head_rms_norm_rope", {{"x", &x}});
  }
  void quant_sim(QuantSimParams p, const Tensor& x) override {
    observer_.accesses("quant_sim", {{&x}, {&x}});
    observer_.begin(inner_, "quant_sim", nullptr);
    inner_.quant_sim(p, x);
    observer_.end(inner_, "quant_sim", {{"x", &x}});
  }
  void hadamard(HadamardParams p, const Tensor& x) override {
    observer_.accesses("hadamard", {{&x}, {&x}});
    observer_.begin(inner_, "hadamard", nullptr);
    inner_.hadamard(p, x);
    observer_.end(inner_, "hadamard", {{"x", &x}});
  }
  void hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
              const Tensor& comb) override {
    observer_.accesses("hc_pre", {{&x}, {&y, &post, &comb}});
    observer_.begin(inner_, "hc_pre", nullptr);
    inner_.hc_pre(p, w, x, y, post, comb);
    observer_.end(inner_, "hc_pre", {{"y", &y}, {"post", &post}, {"comb", &comb}});
  }
  void hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
               const Tensor& out) override {
    observer_.accesses("hc_post", {{&f, &x, &post, &comb}, {&out}});
    observer_.begin(inner_, "hc_post", nullptr);
    inner_.hc_post(p, f, x, post, comb, out);
    observer_.end(inner_, "hc_post", {{"out", &out}});
  }
  void hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) override {
    observer_.accesses("hc_head", {{&x}, {&y}});
    observer_.begin(inner_, "hc_head", nullptr);
    inner_.hc_head(p, w, x, y);
    observer_.end(inner_, "hc_head", {{"y", &y}});
  }
  void compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                        const Tensor& x, const Tensor& kv, const Tensor& score) override {
    observer_.accesses("compress_project", {{&x}, {&kv, &score}});
    observer_.begin(inner_, "compress_project", nullptr);
    inner_.compress_project(p, w, positions, x, kv, score);
    observer_.end(inner_, "compress_project", {{"kv", &kv}, {"score", &score}});
  }
  void compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                     std::span<const CompressRow> rows, const Tensor& out) override {
    observer_.accesses("compress_pool", {{&kv_ring, &score_ring}, {&out}});
    observer_.begin(inner_, "compress_pool", nullptr);
    inner_.compress_pool(p, kv_ring, score_ring, rows, out);
    observer_.end(inner_, "compress_pool", {{"out", &out}});
  }
  void indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                    std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) override {
    observer_.accesses("indexer_topk", {{&q, &w, &index_rows}, {&selected, margin}});
    observer_.begin(inner_, "indexer_topk", nullptr);
    inner_.indexer_topk(p, q, w, index_rows, rows, selected, margin);
    observer_.end(inner_, "indexer_topk", {{"selected", &selected}, {"margin", margin}});
  }
  void attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                 const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                 const Tensor& out) override {
    observer_.accesses("attention", {{&q, &ring, &compressed, selected}, {&out}});
    observer_.begin(inner_, "attention", nullptr);
    inner_.attention(p, q, ring, compressed, selected, sinks, rows, out);
    observer_.end(inner_, "attention", {{"out", &out}});
  }
  void attention_rope(AttentionParams p, RopeParams r, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                      const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                      const Tensor& out) override {
    observer_.accesses("attention_rope", {{&q, &ring, &compressed, selected}, {&out}});
    observer_.begin(inner_, "attention_rope", nullptr);
    inner_.attention_rope(p, r, q, ring, compressed, selected, sinks, rows, out);
    observer_.end(inner_, "attention_rope", {{"out", &out}});
  }
  void route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
             const Tensor& ids, const Tensor& weights, const Tensor* margin) override {
    observer_.accesses("route", {{&x}, {&ids, &weights, margin}});
    observer_.begin(inner_, "route", nullptr);
    inner_.route(p, w, x, tokens, ids, weights, margin);
    observer_.end(inner_, "route", {{"ids", &ids}, {"weights", &weights}, {"margin", margin}});
  }
  void routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x, const Tensor& ids,
                      const Tensor& weights, const Tensor& out) override {
    observer_.accesses("routed_experts", {{&x, &ids, &weights}, {&out}});
    observer_.begin(inner_, "routed_experts", nullptr);
    inner_.routed_experts(p, experts, x, ids, weights, out);
    observer_.end(inner_, "routed_experts", {{"out", &out}});
  }
  void shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) override {
    observer_.accesses("shared_expert", {{&x}, {&out}});
    observer_.begin(inner_, "shared_expert", nullptr);
    inner_.shared_expert(p, w, x, out);
    observer_.end(inner_, "shared_expert", {{"out", &out}});
  }
  void add(const Tensor& a, const Tensor& b, const Tensor& out) override {
    observer_.accesses("add", {{&a, &b}, {&out}});
    observer_.begin(inner_, "add", nullptr);
    inner_.add(a, b, out);
    observer_.end(inner_, "add", {{"out", &out}});
  }
  // hc_pre_norm is not forwarded either: observers see its hc_pre and rms_norm.
  // routed_experts_add is not forwarded: its default runs routed_experts, join_lanes and add through this backend,
  // so an observer sees those ops and the lanes' join between them (the lane checker needs the join).

 private:
  std::unique_ptr<Backend> owned_;
  std::unique_ptr<OpObserver> owned_observer_;
  Backend& inner_;
  OpObserver& observer_;
};

}  // namespace

std::unique_ptr<Backend> make_observed_backend(std::unique_ptr<Backend> inner, std::unique_ptr<OpObserver> observer) {
  Backend& ref = *inner;
  OpObserver& obs = *observer;
  return std::make_unique<ObservedBackend>(std::move(inner), ref, std::move(observer), obs);
}

std::unique_ptr<Backend> make_observed_backend(std::unique_ptr<Backend> inner, OpObserver& observer) {
  Backend& ref = *inner;
  return std::make_unique<ObservedBackend>(std::move(inner), ref, nullptr, observer);
}

std::unique_ptr<Backend> make_observed_backend(Backend& inner, OpObserver& observer) {
  return std::make_unique<ObservedBackend>(nullptr, inner, nullptr, observer);
}

}  // namespace plumb::kernels
