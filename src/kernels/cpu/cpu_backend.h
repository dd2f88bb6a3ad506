// The CPU backend with the release numerics (dsv4-forward.md section 10): activations are float32 tensors holding
// the release's values (bf16-rounded wherever the release stores bf16), FP8/FP4 activation quantization before the
// quantized linears with promotion every 128 (FP8) / 32 (FP4) along K, KV FP8 and indexer FP4 simulation. Weights
// stay in their release formats and are decoded on the fly. Every reduction has one fixed order (release_math.h)
// and work is split over rows and fixed-size output chunks only, so each row's bits are those it gets alone.
// One file per op family: linear.cpp, norm_rope.cpp, mhc.cpp, compressor.cpp, indexer.cpp, attention.cpp, moe.cpp,
// elementwise.cpp.
#pragma once

#include "kernels/host_backend.h"

namespace plumb::kernels::cpu {

class CpuBackend final : public HostBackend {
 public:
  const char* name() const override { return "cpu"; }
  Numerics numerics() const override { return Numerics::release; }
  DType act_dtype() const override { return DType::dtype_f32; }

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

}  // namespace plumb::kernels::cpu
