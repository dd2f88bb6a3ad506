// Choosing a host backend by numerics; the fused pairs' default: their two ops.
#include "kernels/backend.h"

#include <vector>

#include "base/error.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/ref/ref_backend.h"

namespace plumb::kernels {

const char* numerics_name(Numerics numerics) { return numerics == Numerics::oracle ? "oracle" : "release"; }

Numerics parse_numerics(const std::string& name) {
  if (name == "oracle") return Numerics::oracle;
  if (name == "release") return Numerics::release;
  fail("unknown numerics '{}': use 'release' (production) or 'oracle' (float64 reference)", name);
}

void Backend::head_rms_norm_rope(HeadNormParams n, RopeParams r, std::span<const int64_t> positions,
                                 const Tensor& x) {
  head_rms_norm(n, x);
  rope(r, positions, x);
}

void Backend::attention_rope(AttentionParams p, RopeParams r, const Tensor& q, const Tensor& ring,
                             const Tensor& compressed, const Tensor* selected, const Weight& sinks,
                             std::span<const TokenRow> rows, const Tensor& out) {
  attention(p, q, ring, compressed, selected, sinks, rows, out);
  std::vector<int64_t> positions;
  for (const auto& row : rows) positions.push_back(row.position);
  rope(r, positions, out);
}

void Backend::hc_pre_norm(HcParams p, const HcWeights& w, RmsNormParams n, const Weight& norm, const Tensor& x,
                          const Tensor& y, const Tensor& xn, const Tensor& post, const Tensor& comb) {
  hc_pre(p, w, x, y, post, comb);
  rms_norm(n, norm, y, xn);
}

void Backend::routed_experts_add(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x,
                                 const Tensor& ids, const Tensor& weights, const Tensor& addend, const Tensor& routed,
                                 const Tensor& out) {
  routed_experts(p, experts, x, ids, weights, routed);
  join_lanes();
  add(routed, addend, out);
}

std::unique_ptr<Backend> make_host_backend(Numerics numerics) {
  if (numerics == Numerics::oracle) return std::make_unique<ref::RefBackend>();
  return std::make_unique<cpu::CpuBackend>();
}

}  // namespace plumb::kernels
