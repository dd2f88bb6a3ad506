// The MoE sublayer (dsv4-forward.md section 8): router, routed experts summed in ascending expert id, the shared
// expert added last, wrapped in mHC pre/post.
#include <utility>

#include "model/dsv4/forward.h"

namespace plumb::dsv4 {

void Forward::moe(int64_t b, const LaunchRows& rows, kernels::Tensor& x, kernels::Tensor& spare) {
  Workspace ws(scratch_);
  const BlockSpec& spec = config_.blocks[size_t(b)];
  const BlockWeights& w = weights_.blocks[size_t(b)];
  const int64_t n = rows.size(), d = config_.hidden_size, hc = config_.hc_mult, k = config_.experts_per_token;

  const kernels::Tensor y = ws.act(n, d), post = ws.act(n, hc), comb = ws.act(n, hc * hc), xn = ws.act(n, d);
  backend_.hc_pre_norm(hc_params(), w.hc_ffn, {config_.rms_norm_eps}, w.ffn_norm, x, y, xn, post, comb);

  const kernels::Tensor routed = ws.act(n, d), shared = ws.act(n, d), out = ws.act(n, d);
  // The shared expert on lane 1 beside the router and the routed experts on lane 0 (Backend::begin_lane): both read
  // xn only and write their own tensors; the sum waits for both.
  {
    const kernels::OnLane lane(backend_, 1);
    // The release builds the shared expert without swiglu_limit: no clamp (dsv4-forward.md section 1 item 1).
    backend_.shared_expert({.hidden = d, .inter = config_.moe_inter_dim}, w.shared, xn, shared);
  }
  const kernels::Tensor ids = ws.i32(n, k), weights = ws.act(n, k), margin = ws.act(n, 1);
  backend_.route({.experts = config_.n_routed_experts,
                  .topk = k,
                  .route_scale = config_.routed_scaling_factor,
                  .hash = spec.hash_routed},
                 w.router, xn, rows.tokens, ids, weights, &margin);
  record(nullptr, nullptr, &ids, &margin, n);

  const kernels::ExpertParams routed_params{.hidden = d, .inter = config_.moe_inter_dim,
                                            .swiglu_limit = config_.swiglu_limit};
  // The routed sum plus the shared expert's output; the op joins the lanes before it reads `shared`.
  backend_.routed_experts_add(routed_params, w.experts, xn, ids, weights, shared, routed, out);
  backend_.hc_post(hc_params(), out, x, post, comb, spare);
  std::swap(x, spare);
}

}  // namespace plumb::dsv4
