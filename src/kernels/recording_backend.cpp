// The recording decorator: each op forwards to the inner backend, then downloads the tensors the op wrote.
#include "kernels/recording_backend.h"

#include <cstdio>
#include <fstream>

#include "base/error.h"

namespace plumb::kernels {
namespace {

class RecordingBackend final : public Backend {
 public:
  RecordingBackend(std::unique_ptr<Backend> inner, std::vector<OpRecord>* sink)
      : inner_(std::move(inner)), sink_(sink) {}

  const char* name() const override { return inner_->name(); }
  Numerics numerics() const override { return inner_->numerics(); }
  DType act_dtype() const override { return inner_->act_dtype(); }
  Buffer allocate(size_t bytes) override { return inner_->allocate(bytes); }
  Weight upload_weight(const Weight& host) override { return inner_->upload_weight(host); }
  void download(const Tensor& src, void* host) override { inner_->download(src, host); }
  void upload(const void* host, const Tensor& dst) override { inner_->upload(host, dst); }
  void download_f32(const Tensor& src, float* host) override { inner_->download_f32(src, host); }
  void copy_rows(const Tensor& src, std::span<const int64_t> src_rows, const Tensor& dst,
                 std::span<const int64_t> dst_rows) override {
    inner_->copy_rows(src, src_rows, dst, dst_rows);
  }
  void synchronize() override { inner_->synchronize(); }

  void embed(const Weight& table, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) override {
    inner_->embed(table, tokens, copies, out);
    record("embed.out", out);
  }
  void linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    inner_->linear(p, w, x, y);
    record("linear.y", y);
  }
  void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    inner_->rms_norm(p, w, x, y);
    record("rms_norm.y", y);
  }
  void head_rms_norm(HeadNormParams p, const Tensor& x) override {
    inner_->head_rms_norm(p, x);
    record("head_rms_norm.x", x);
  }
  void rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) override {
    inner_->rope(p, positions, x);
    record("rope.x", x);
  }
  void quant_sim(QuantSimParams p, const Tensor& x) override {
    inner_->quant_sim(p, x);
    record("quant_sim.x", x);
  }
  void hadamard(HadamardParams p, const Tensor& x) override {
    inner_->hadamard(p, x);
    record("hadamard.x", x);
  }
  void hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
              const Tensor& comb) override {
    inner_->hc_pre(p, w, x, y, post, comb);
    record("hc_pre.y", y);
    record("hc_pre.post", post);
    record("hc_pre.comb", comb);
  }
  void hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
               const Tensor& out) override {
    inner_->hc_post(p, f, x, post, comb, out);
    record("hc_post.out", out);
  }
  void hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) override {
    inner_->hc_head(p, w, x, y);
    record("hc_head.y", y);
  }
  void compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                        const Tensor& x, const Tensor& kv, const Tensor& score) override {
    inner_->compress_project(p, w, positions, x, kv, score);
    record("compress_project.kv", kv);
    record("compress_project.score", score);
  }
  void compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                     std::span<const CompressRow> rows, const Tensor& out) override {
    inner_->compress_pool(p, kv_ring, score_ring, rows, out);
    record("compress_pool.out", out);
  }
  void indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                    std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) override {
    inner_->indexer_topk(p, q, w, index_rows, rows, selected, margin);
    record("indexer_topk.selected", selected);
    if (margin) record("indexer_topk.margin", *margin);
  }
  void attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                 const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                 const Tensor& out) override {
    inner_->attention(p, q, ring, compressed, selected, sinks, rows, out);
    record("attention.out", out);
  }
  void route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
             const Tensor& ids, const Tensor& weights, const Tensor* margin) override {
    inner_->route(p, w, x, tokens, ids, weights, margin);
    record("route.ids", ids);
    record("route.weights", weights);
    if (margin) record("route.margin", *margin);
  }
  void routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x, const Tensor& ids,
                      const Tensor& weights, const Tensor& out) override {
    inner_->routed_experts(p, experts, x, ids, weights, out);
    record("routed_experts.out", out);
  }
  void shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) override {
    inner_->shared_expert(p, w, x, out);
    record("shared_expert.out", out);
  }
  void add(const Tensor& a, const Tensor& b, const Tensor& out) override {
    inner_->add(a, b, out);
    record("add.out", out);
  }

 private:
  void record(const char* op, const Tensor& t) {
    OpRecord r{op, t.rows, t.cols, std::vector<float>(size_t(t.rows * t.cols))};
    if (t.dtype == DType::dtype_i32) {
      std::vector<int32_t> ids(r.values.size());
      inner_->download(t, ids.data());
      for (size_t i = 0; i < ids.size(); ++i) r.values[i] = float(ids[i]);
    } else {
      inner_->download_f32(t, r.values.data());
    }
    sink_->push_back(std::move(r));
  }

  std::unique_ptr<Backend> inner_;
  std::vector<OpRecord>* sink_;
};

}  // namespace

std::unique_ptr<Backend> make_recording_backend(std::unique_ptr<Backend> inner, std::vector<OpRecord>* sink) {
  return std::make_unique<RecordingBackend>(std::move(inner), sink);
}

void write_op_records(const std::string& path, const std::vector<OpRecord>& records) {
  std::ofstream out(path, std::ios::binary);
  const uint64_t count = records.size();
  out.write(reinterpret_cast<const char*>(&count), 8);
  for (const OpRecord& r : records) {
    const uint32_t length = uint32_t(r.op.size());
    const uint64_t rows = uint64_t(r.rows), cols = uint64_t(r.cols);
    out.write(reinterpret_cast<const char*>(&length), 4);
    out.write(r.op.data(), length);
    out.write(reinterpret_cast<const char*>(&rows), 8);
    out.write(reinterpret_cast<const char*>(&cols), 8);
    out.write(reinterpret_cast<const char*>(r.values.data()), std::streamsize(r.values.size() * sizeof(float)));
  }
  if (!out) fail("{}: cannot write", path);
}

}  // namespace plumb::kernels
