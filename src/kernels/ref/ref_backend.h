// The float64 oracle backend: the release's function with every rounding removed (dsv4-forward.md section 0):
// weights decoded exactly, activations never quantized, no KV/indexer simulation, all arithmetic in double.
// Each op is written for clarity over speed; sums run in ascending index order. One file per op family:
// linear.cpp, norm_rope.cpp, mhc.cpp, compressor.cpp, indexer.cpp, attention.cpp, moe.cpp, elementwise.cpp.
#pragma once

#include "kernels/host_backend.h"

namespace plumb::kernels::ref {

class RefBackend final : public HostBackend {
 public:
  const char* name() const override { return "ref"; }
  Numerics numerics() const override { return Numerics::oracle; }
  DType act_dtype() const override { return DType::dtype_f64; }

  void embed(const Weight& table, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) override;
  void linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) override;
  void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) override;
  void head_rms_norm(HeadNormParams p, const Tensor& x) override;
  void rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) override;
  void quant_sim(QuantSimParams p, const Tensor& x) override;
  void hadamard(HadamardParams p, const Tensor& x) override;
  void hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
              const Tensor& comb) override;
  void hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
               const Tensor& out) override;
  void hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) override;
  void compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                        const Tensor& x, const Tensor& kv, const Tensor& score) override;
  void compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                     std::span<const CompressRow> rows, const Tensor& out) override;
  void indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                    std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) override;
  void attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                 const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                 const Tensor& out) override;
  void route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
             const Tensor& ids, const Tensor& weights, const Tensor* margin) override;
  void routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x, const Tensor& ids,
                      const Tensor& weights, const Tensor& out) override;
  void shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) override;
  void add(const Tensor& a, const Tensor& b, const Tensor& out) override;
};

// f64 dot product in ascending order (shared by the ref files).
inline double dot(const double* a, const double* b, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

}  // namespace plumb::kernels::ref
