// The op interface the model's forward is written against: one abstract Backend owning memory and running coarse
// ops, one per kernel family. Implementations: kernels/ref (float64 oracle) and kernels/cpu (release numerics);
// a CUDA backend implements the same methods on device memory. The forward never touches tensor elements: it
// allocates, copies and computes only through these methods, with per-row metadata passed as host arrays.
//
// Activation tensors have the backend's act_dtype() (f64 for the oracle, f32 holding the release's values for
// cpu); index tensors are i32. Each op's comment states its function; dsv4-forward.md says how the release rounds.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "kernels/lane_order.h"
#include "kernels/ops.h"
#include "kernels/tensor.h"

namespace plumb::kernels {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  virtual Numerics numerics() const = 0;
  virtual DType act_dtype() const = 0;

  // ---- memory ----
  virtual Buffer allocate(size_t bytes) = 0;  // zero-filled
  // A weight in host memory (release format) -> the same weight where this backend computes. The host bytes must
  // outlive the returned weight when the backend shares them (host backends do).
  virtual Weight upload_weight(const Weight& host) = 0;
  virtual void download(const Tensor& src, void* host) = 0;      // rows packed, src's dtype
  virtual void upload(const void* host, const Tensor& dst) = 0;  // rows packed, dst's dtype
  virtual void download_f32(const Tensor& src, float* host) = 0; // an activation tensor, converted to float32
  // dst row dst_rows[i] = src row src_rows[i] (same dtype and cols); rows may not repeat in dst_rows.
  virtual void copy_rows(const Tensor& src, std::span<const int64_t> src_rows, const Tensor& dst,
                         std::span<const int64_t> dst_rows) = 0;
  // Returns when every op issued so far has finished (timing). Host backends finish each op before returning.
  virtual void synchronize() {}
  // How the backend ran its launches so far, for benchmarks' output ("" when there is nothing to say).
  virtual std::string launch_summary() const { return {}; }
  // Hints that chains of ops are independent, so a device may run them side by side (no effect on any result): ops
  // after begin_lane(k) (0 < k < kLanes) form lane k, which starts after every op issued so far on lane 0, until
  // end_lane(); join_lanes() makes lane 0's next op wait for every lane's ops. The caller promises that a lane's ops
  // neither read what the other lanes write before the join nor write what they read or write;
  // kernels/lane_check_backend.h checks that promise. Which ops follow which: kernels/lane_order.h.
  static constexpr int kLanes = kernels::kLanes;
  virtual void begin_lane(int lane) { (void)lane; }
  virtual void end_lane() {}
  virtual void join_lanes() {}

  // ---- ops ----
  // out[n] = `copies` copies of table[tokens[n]] side by side (out.cols = copies * table.cols).
  virtual void embed(const Weight& table, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) = 0;
  // y = W x (see LinearParams); W is fp8_blocks or bf16.
  virtual void linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) = 0;
  // y = w * x / sqrt(mean(x^2) + eps) per row.
  virtual void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) = 0;
  // In place: each head of each row divided by its RMS (no weight).
  virtual void head_rms_norm(HeadNormParams p, const Tensor& x) = 0;
  // In place: rotate the rope dims of every head of row n by positions[n] (inverse: by -positions[n]).
  virtual void rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) = 0;
  // In place: release rounds blocks through FP8 or FP4 with a power-of-two scale; the oracle does nothing.
  virtual void quant_sim(QuantSimParams p, const Tensor& x) = 0;
  // In place: x <- x H / sqrt(size) on each size-wide column chunk.
  virtual void hadamard(HadamardParams p, const Tensor& x) = 0;

  // mHC pre: from streams x [N, hc*hidden], the sublayer input y [N, hidden], post [N, hc] and the Sinkhorn-
  // normalized comb [N, hc*hc] (comb[j*hc + k]: source stream j -> destination k).
  virtual void hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
                      const Tensor& comb) = 0;
  // mHC post: out[k] = post[k] * f + sum_j comb[j][k] x[j] per row (out may not alias x).
  virtual void hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
                       const Tensor& out) = 0;
  // mHC head: y = sum_k (sigmoid(mix_k * scale + base_k) + eps) x[k] per row.
  virtual void hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) = 0;

  // Compressor projections of N tokens: kv = wkv x, score = wgate x + ape[position mod ratio] (rows of the rings).
  virtual void compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                                const Tensor& x, const Tensor& kv, const Tensor& score) = 0;
  // Pooled rows u [M, width] of complete groups: per channel softmax over the group's entries (see CompressParams)
  // of score, weighting kv.
  virtual void compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                             std::span<const CompressRow> rows, const Tensor& out) = 0;

  // Lightning indexer: score of index row t for row n = sum_h w[n, h] relu(q[n, h] . index_rows[t]); writes the
  // selected rows [N, topk] (i32, -1 past the selection) and, when margin is given, margin[n] = the gap between
  // the last selected and the first unselected score (+inf when every visible row is selected).
  virtual void indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                            std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) = 0;

  // out [N, heads*head_dim] = attention of each head of q over the row's visible keys (see AttentionParams) with
  // a sink logit per head in the denominator. selected: [N, k] i32 (CSA) or null (all visible compressed rows).
  virtual void attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                         const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                         const Tensor& out) = 0;

  // Router: scores s = sqrt(softplus(gate x)); experts ids [N, topk] (i32, in selection order) and weights
  // [N, topk] = s_e / sum s * route_scale; margin as for the indexer (score + bias order).
  virtual void route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
                     const Tensor& ids, const Tensor& weights, const Tensor* margin) = 0;
  // Routed experts: out = sum over the row's experts in ascending id of w2_e(weight_e * silu(w1_e x) * (w3_e x))
  // with the SwiGLU clamp; out is the unrounded accumulator (release: fp32).
  virtual void routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x,
                              const Tensor& ids, const Tensor& weights, const Tensor& out) = 0;
  // Shared expert: out = w2(silu(w1 x) * (w3 x)), FP8 weights.
  virtual void shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) = 0;
  // out = a + b with b repeated across out.cols / b.cols copies (release: fp32 sum rounded to bf16).
  virtual void add(const Tensor& a, const Tensor& b, const Tensor& out) = 0;

  // ---- fused pairs: one op where a device saves a launch; by default the two ops, so the same bits ----
  // head_rms_norm(n, x), then rope(r, positions, x).
  virtual void head_rms_norm_rope(HeadNormParams n, RopeParams r, std::span<const int64_t> positions,
                                  const Tensor& x);
  // attention(p, ...), then rope(r) on out at each row's position (the output's inverse rotation).
  virtual void attention_rope(AttentionParams p, RopeParams r, const Tensor& q, const Tensor& ring,
                              const Tensor& compressed, const Tensor* selected, const Weight& sinks,
                              std::span<const TokenRow> rows, const Tensor& out);
  // hc_pre(p, w, x, y, post, comb), then rms_norm(n, norm, y, xn): the sublayer's normalized input.
  virtual void hc_pre_norm(HcParams p, const HcWeights& w, RmsNormParams n, const Weight& norm, const Tensor& x,
                           const Tensor& y, const Tensor& xn, const Tensor& post, const Tensor& comb);
  // routed_experts(p, ..., routed), then join_lanes() (addend may come from a side lane), then add(routed, addend,
  // out). A device may skip `routed` and add in the experts' last launch, after the join.
  virtual void routed_experts_add(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x,
                                  const Tensor& ids, const Tensor& weights, const Tensor& addend, const Tensor& routed,
                                  const Tensor& out);
};

// Ops issued while it lives go to side lane `lane` (Backend::begin_lane). It ends the lane however the scope is
// left, so an op that throws inside leaves the backend on lane 0.
class OnLane {
 public:
  OnLane(Backend& backend, int lane) : backend_(backend) { backend_.begin_lane(lane); }
  ~OnLane() { backend_.end_lane(); }
  OnLane(const OnLane&) = delete;
  OnLane& operator=(const OnLane&) = delete;

 private:
  Backend& backend_;
};

// "oracle" -> the float64 reference backend, "release" -> the CPU release-numerics backend.
std::unique_ptr<Backend> make_host_backend(Numerics numerics);
Numerics parse_numerics(const std::string& name);  // "oracle" / "release"; throws otherwise

}  // namespace plumb::kernels
