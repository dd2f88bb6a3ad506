#include "kernels/cuda/cuda_backend.h"

#include "base/env_switch.h"
#include "base/error.h"

#ifndef PLUMB_HAVE_CUDA
namespace plumb::kernels {
std::unique_ptr<Backend> make_cuda_backend() { fail("this plumb was built without CUDA (--backend cuda)"); }
}  // namespace plumb::kernels
#else
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "kernels/control.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/fp4_experts.h"
#include "kernels/cuda/fp8_linear.h"
#include "kernels/cuda/launch_queue.h"
#include "kernels/cuda/ops_cuda.h"
#include "kernels/rope_frequencies.h"

namespace plumb::kernels {
namespace {

// Planted controls of the CUDA ops (kernels/control.h), named as the CPU backend's with the family suffixed "_cuda".
const ControlId kOutputScaleSkipped =
    register_control("dense_linear_cuda", "output_scale_skipped", "the output scale is not applied");
const ControlId kTokenOffByOne = register_control("embed_cuda", "token_off_by_one", "each row reads the next token's row");
const ControlId kEpsDropped = register_control("rms_norm_cuda", "eps_dropped", "eps is left out of the mean square");
const ControlId kInverseIgnored =
    register_control("rope_cuda", "inverse_ignored", "the inverse rotation rotates forward");
const ControlId kYarnIgnored = register_control("rope_cuda", "yarn_ignored", "YaRN is left out of the frequencies");
const ControlId kSinkhornOneRound = register_control(
    "mhc_pre_cuda", "sinkhorn_one_round", "Sinkhorn stops after the softmax and one column normalization");
const ControlId kPreRmsOverFirstStream = register_control(
    "mhc_pre_cuda", "rms_over_first_stream", "the input RMS is taken over the first stream instead of all four");
const ControlId kNormFirstWarp = register_control(
    "mhc_pre_norm_cuda", "norm_first_warp_only", "the fused norm's mean square is the first warp's values only");
const ControlId kHeadRmsOverFirstStream = register_control(
    "mhc_head_cuda", "rms_over_first_stream", "the input RMS is taken over the first stream instead of all four");
const ControlId kPostCombTransposed =
    register_control("mhc_post_cuda", "comb_transposed", "comb is read destination-major (transposed)");
const ControlId kApeRowOffByOne = register_control("compressor_project_cuda", "ape_row_off_by_one",
                                                   "the position bias of the next position in the group is added");
const ControlId kReluDropped =
    register_control("indexer_cuda", "relu_dropped", "head logits are summed without the relu");
const ControlId kSinkLeftOut =
    register_control("window_attention_cuda", "sink_left_out", "the sink is left out of the softmax denominator");
const ControlId kWindowOffByOne = register_control("window_attention_cuda", "window_off_by_one",
                                                   "the oldest position of a full window is not attended");
const ControlId kPaddingReadsRow0 =
    register_control("sparse_attention_cuda", "padding_reads_row_0", "a -1 (padding) selection attends compressed row 0");
const ControlId kHashReadsNextToken =
    register_control("router_cuda", "hash_reads_next_token", "hash routing reads the next token's table row");
const ControlId kRouteScaleSkipped = register_control("router_cuda", "route_scale_skipped", "route_scale is not applied");
const ControlId kSharedClamped =
    register_control("shared_expert_cuda", "clamped", "the shared expert clamps its SwiGLU as the routed ones do");

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) fail("CUDA error {} in {}", cudaGetErrorString(err), what);
}

cuda::ops::View view(const Tensor& t) { return {t.data, t.rows, t.cols, t.stride}; }

static_assert(cuda::ops::kFp8Blocks == int(WeightFormat::fp8_blocks) && cuda::ops::kFp4Blocks == int(WeightFormat::fp4_blocks) &&
              cuda::ops::kBf16 == int(WeightFormat::bf16) && cuda::ops::kF32 == int(WeightFormat::f32) &&
              cuda::ops::kI64 == int(WeightFormat::i64));

cuda::ops::WeightRef ref(const Weight& w) {
  return {int(w.format), w.data, w.scales, w.rows, w.cols, w.format == WeightFormat::fp8_blocks || w.format == WeightFormat::fp4_blocks ? w.scale_cols() : 0};
}

// A device buffer that grows on demand (the old one is freed once the queued launches that may read it ran).
class Scratch {
 public:
  explicit Scratch(cuda::LaunchQueue& queue) : queue_(queue) {}
  void* get(size_t bytes) {
    if (bytes > buffer_.bytes()) {
      if (buffer_.get()) {
        queue_.flush();
        cuda::synchronize();
      }
      buffer_ = cuda::DeviceBuffer(std::max(bytes, buffer_.bytes() * 2));
      buffer_.fill_bytes(0);
    }
    return buffer_.get();
  }

 private:
  cuda::LaunchQueue& queue_;
  cuda::DeviceBuffer buffer_;
};

// Whether flushes replay CUDA graphs (launch_queue.h): on unless PLUMB_CUDA_GRAPHS=0.
bool graphs_enabled() { return env_switch_on("PLUMB_CUDA_GRAPHS"); }

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    if (!cuda::device_available()) fail("--backend cuda: no CUDA device is available");
  }
  ~CudaBackend() override {
    try {
      queue_->flush();
      cuda::synchronize();
    } catch (...) {  // a destructor cannot report; an earlier sync would have
    }
  }
  const char* name() const override { return "cuda"; }
  Numerics numerics() const override { return Numerics::release; }
  DType act_dtype() const override { return DType::dtype_f32; }

  Buffer allocate(size_t bytes) override {
    void* p = nullptr;
    if (bytes == 0) return Buffer(nullptr, 0, {});
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
      cudaGetLastError();
      size_t free_bytes = 0, total = 0;
      cudaMemGetInfo(&free_bytes, &total);
      fail("out of GPU memory: {} bytes asked, {} of {} free", bytes, free_bytes, total);
    }
    check(cudaMemset(p, 0, bytes), "cudaMemset");
    // Launches still queued may use the buffer: they run before it is freed.
    return Buffer(p, bytes, [queue = queue_](void* q) {
      queue->flush();
      cudaFree(q);
    });
  }

  Weight upload_weight(const Weight& host) override {
    Weight w = host;
    if (host.format == WeightFormat::fp4_blocks) {
      std::vector<uint8_t> codes(host.data_bytes()), scales(host.scale_bytes());
      cuda::shuffle_fp4_matrix(static_cast<const uint8_t*>(host.data), host.scales, host.rows, host.cols, codes.data(),
                               scales.data());
      w.data = copy_to_device(codes.data(), codes.size());
      w.scales = static_cast<const uint8_t*>(copy_to_device(scales.data(), scales.size()));
      return w;
    }
    w.data = copy_to_device(host.data, host.data_bytes());
    if (host.scales) w.scales = static_cast<const uint8_t*>(copy_to_device(host.scales, host.scale_bytes()));
    return w;
  }

  void download(const Tensor& src, void* host) override {
    queue_->flush();
    const size_t e = dtype_size(src.dtype);
    check(cudaMemcpy2D(host, size_t(src.cols) * e, src.data, size_t(src.stride) * e, size_t(src.cols) * e,
                       size_t(src.rows), cudaMemcpyDeviceToHost), "download");
  }
  void upload(const void* host, const Tensor& dst) override {
    queue_->flush();  // queued launches read or write dst before the copy lands
    const size_t e = dtype_size(dst.dtype);
    check(cudaMemcpy2D(dst.data, size_t(dst.stride) * e, host, size_t(dst.cols) * e, size_t(dst.cols) * e,
                       size_t(dst.rows), cudaMemcpyHostToDevice), "upload");
  }
  void download_f32(const Tensor& src, float* host) override {
    PLUMB_CHECK(src.dtype == DType::dtype_f32);
    download(src, host);
  }
  void copy_rows(const Tensor& src, std::span<const int64_t> src_rows, const Tensor& dst,
                 std::span<const int64_t> dst_rows) override {
    PLUMB_CHECK(src.dtype == dst.dtype && src.cols == dst.cols && src_rows.size() == dst_rows.size());
    std::vector<int64_t> both(src_rows.begin(), src_rows.end());
    both.insert(both.end(), dst_rows.begin(), dst_rows.end());
    const auto* staged = stage(both);
    cuda::ops::copy_rows(view(src), staged, view(dst), staged + src_rows.size(), int64_t(src_rows.size()),
                         int(dtype_size(src.dtype)), queue());
  }

  void begin_lane(int lane) override {
    if (lanes_enabled()) queue_->begin_lane(lane);
  }
  void end_lane() override { queue_->end_lane(); }
  void join_lanes() override {
    if (lanes_enabled()) queue_->join_lanes();
  }
  void synchronize() override {
    queue_->flush();
    cuda::synchronize();
  }
  std::string launch_summary() const override {
    const cuda::LaunchQueueStats s = queue_->stats();
    return fmt::format("cuda launches: {} in {} flushes; graphs {}: {} built, {} replays, {} nodes updated; "
                       "dependent launch {}",
                       s.launches, s.flushes, queue_->graphs() ? "on" : "off (PLUMB_CUDA_GRAPHS=0)", s.graphs_built,
                       s.graph_replays, s.nodes_updated, queue_->dependent_launch() ? "on" : "off (PLUMB_CUDA_PDL=0)") +
           (queue_->kernel_times().empty() ? "" : "\n\n" + queue_->kernel_times());
  }

  void embed(const Weight& table, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) override {
    for (int32_t t : tokens) PLUMB_CHECK(t >= 0 && t < table.rows);
    if (planted(kTokenOffByOne)) {
      std::vector<int32_t> next;
      for (int32_t t : tokens) next.push_back(int32_t((t + 1) % table.rows));
      cuda::ops::embed(ref(table), stage(next), copies, view(out), queue());
      return;
    }
    cuda::ops::embed(ref(table), stage(tokens), copies, view(out), queue());
  }

  void linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    PLUMB_CHECK(x.dtype == DType::dtype_f32 && y.dtype == DType::dtype_f32 && x.rows == y.rows);
    PLUMB_CHECK(p.groups >= 1 && w.rows == y.cols && w.cols * p.groups == x.cols && w.rows % p.groups == 0);
    if (!p.quantize_input) {
      const float scale = planted(kOutputScaleSkipped) ? 1.0f : float(p.output_scale);
      cuda::ops::dense_linear(ref(w), p.groups, view(x), view(y), p.output == Rounding::bf16, scale, queue());
      return;
    }
    PLUMB_CHECK(w.format == WeightFormat::fp8_blocks && p.groups == 1);
    void* ws = fp8_workspace(w.rows, w.cols, x.rows);
    cuda::fp8_linear(fp8_view(w), fp8_io(p, x, y, fp8_arrivals()), x.rows, ws, 0, queue());
  }

  static cuda::Fp8WeightView fp8_view(const Weight& w) {
    return {static_cast<const uint8_t*>(w.data), w.scales, w.rows, w.cols};
  }

  // Where an FP8 linear reads x and writes y (float32 activation tensors).
  static cuda::LinearIo fp8_io(const LinearParams& p, const Tensor& x, const Tensor& y, unsigned* arrivals) {
    cuda::LinearIo io;
    io.x = x.data;
    io.x_f32 = true;
    io.x_stride = x.stride;
    io.y = y.data;
    io.y_f32 = true;
    io.y_stride = y.stride;
    io.round_bf16 = p.output == Rounding::bf16;
    io.output_scale = float(p.output_scale);
    io.arrivals = arrivals;
    return io;
  }

  // The shared expert's w1 and w3 (FP8, the same input) as one launch where the one-launch kernel takes both
  // (cuda::fp8_linear_pair), with a workspace each; the same bits as two linear() calls.
  void gate_and_up(const Weight& w1, const Weight& w3, const Tensor& x, const Tensor& g, const Tensor& u) {
    PLUMB_CHECK(w1.format == WeightFormat::fp8_blocks && w3.format == WeightFormat::fp8_blocks);
    PLUMB_CHECK(x.dtype == DType::dtype_f32 && w1.cols == x.cols && w3.cols == x.cols);
    const size_t bytes = cuda::fp8_linear_workspace_bytes(std::max(w1.rows, w3.rows), x.cols, x.rows);
    const size_t half = (bytes + 255) / 256 * 256;
    auto* ws = static_cast<uint8_t*>(lane_scratch().fp8_workspace.get(2 * half));
    // The arrival counters: w1's tiles first, then w3's, so the two linears never share a counter.
    const LinearParams fp8{.quantize_input = true};
    unsigned* arrivals = fp8_arrivals();
    cuda::fp8_linear_pair(fp8_view(w1), fp8_io(fp8, x, g, arrivals), ws, fp8_view(w3),
                          fp8_io(fp8, x, u, arrivals + w1.rows / 16), ws + half, x.rows, queue());
  }

  void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    cuda::ops::rms_norm(ref(w), planted(kEpsDropped) ? 0.0 : p.eps, view(x), view(y), queue());
  }
  void head_rms_norm(HeadNormParams p, const Tensor& x) override {
    PLUMB_CHECK(x.cols == p.heads * p.head_dim);
    cuda::ops::head_rms_norm(p.heads, p.head_dim, p.eps, view(x), queue());
  }
  void rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) override {
    PLUMB_CHECK(int64_t(positions.size()) == x.rows && x.cols % p.head_dim == 0);
    p = with_rope_plants(p);
    cuda::ops::rope(p.head_dim, p.rope_dims, p.inverse, frequencies(p), stage(positions), view(x), queue());
  }
  void head_rms_norm_rope(HeadNormParams n, RopeParams r, std::span<const int64_t> positions,
                          const Tensor& x) override {
    if (!fused_rope_) return Backend::head_rms_norm_rope(n, r, positions, x);
    PLUMB_CHECK(x.cols == n.heads * n.head_dim && r.head_dim == n.head_dim && int64_t(positions.size()) == x.rows);
    r = with_rope_plants(r);
    const cuda::ops::HeadRope rope{r.rope_dims, r.inverse, frequencies(r), stage(positions)};
    cuda::ops::head_rms_norm(n.heads, n.head_dim, n.eps, view(x), queue(), &rope);
  }
  void quant_sim(QuantSimParams p, const Tensor& x) override {
    PLUMB_CHECK((p.col_end - p.col_begin) % p.block == 0);
    cuda::ops::quant_sim(p.format == SimFormat::fp8_e4m3 ? 0 : 1, p.block, p.col_begin, p.col_end, view(x), queue());
  }
  void hadamard(HadamardParams p, const Tensor& x) override { cuda::ops::hadamard(p.size, view(x), queue()); }

  void hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
              const Tensor& comb) override {
    run_hc_pre(p, w, x, y, post, comb, nullptr);
  }
  // One launch fewer on every sublayer's chain: the norm in hc_pre's block (PLUMB_FUSED_HC_NORM=0: the default's
  // hc_pre and rms_norm; the same bits).
  void hc_pre_norm(HcParams p, const HcWeights& w, RmsNormParams n, const Weight& norm, const Tensor& x,
                   const Tensor& y, const Tensor& xn, const Tensor& post, const Tensor& comb) override {
    if (!fused_hc_norm_ || !cuda::ops::hc_pre_can_norm(hc(p)))
      return Backend::hc_pre_norm(p, w, n, norm, x, y, xn, post, comb);
    PLUMB_CHECK(xn.rows == y.rows && xn.cols == y.cols);
    const cuda::ops::HcNorm fused{ref(norm), planted(kEpsDropped) ? 0.0 : n.eps, view(xn), planted(kNormFirstWarp)};
    run_hc_pre(p, w, x, y, post, comb, &fused);
  }
  void hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
               const Tensor& out) override {
    cuda::ops::HcArgs args = hc(p);
    args.comb_transposed = planted(kPostCombTransposed);
    cuda::ops::hc_post(args, view(f), view(x), view(post), view(comb), view(out), queue());
  }
  void hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) override {
    cuda::ops::HcArgs args = hc(p);
    args.rms_over_first_stream = planted(kHeadRmsOverFirstStream);
    cuda::ops::hc_head(args, ref(w.fn), ref(w.base), ref(w.scale), view(x), view(y), hc_scratch(x.rows), queue());
  }

  void compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                        const Tensor& x, const Tensor& kv, const Tensor& score) override {
    PLUMB_CHECK(int64_t(positions.size()) == x.rows);
    cuda::ops::dense_linear(ref(w.wkv), 1, view(x), view(kv), false, 1.0f, queue());
    cuda::ops::dense_linear(ref(w.wgate), 1, view(x), view(score), false, 1.0f, queue());
    if (planted(kApeRowOffByOne)) {
      std::vector<int64_t> next(positions.begin(), positions.end());
      for (auto& pos : next) ++pos;
      cuda::ops::add_position_bias(ref(w.ape), p.ratio, stage(next), view(score), queue());
      return;
    }
    cuda::ops::add_position_bias(ref(w.ape), p.ratio, stage(positions), view(score), queue());
  }
  void compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                     std::span<const CompressRow> rows, const Tensor& out) override {
    std::vector<int64_t> pairs;
    for (const auto& r : rows) pairs.insert(pairs.end(), {int64_t(r.slot), r.group});
    cuda::ops::compress_pool(p.ratio, p.width, p.overlap, p.ring_rows, view(kv_ring), view(score_ring), stage(pairs),
                             int64_t(rows.size()), view(out), queue());
  }

  void indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                    std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) override {
    const cuda::ops::IndexerArgs a{p.heads, p.head_dim, p.topk, p.ratio, p.rows_per_slot, planted(kReluDropped)};
    auto* scratch =
        static_cast<float*>(lane_scratch().indexer.get(size_t(cuda::ops::indexer_scratch_floats(a, q.rows)) * 4));
    cuda::ops::indexer_topk(a, view(q), view(w), view(index_rows), stage_rows(rows), view(selected),
                            margin ? static_cast<float*>(margin->data) : nullptr, margin ? margin->stride : 0, scratch,
                            queue());
  }

  void attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                 const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                 const Tensor& out) override {
    run_attention(p, nullptr, q, ring, compressed, selected, sinks, rows, out);
  }
  void attention_rope(AttentionParams p, RopeParams r, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                      const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                      const Tensor& out) override {
    if (!fused_rope_ || r.head_dim != p.head_dim)
      return Backend::attention_rope(p, r, q, ring, compressed, selected, sinks, rows, out);
    run_attention(p, &r, q, ring, compressed, selected, sinks, rows, out);
  }
  void route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
             const Tensor& ids, const Tensor& weights, const Tensor* margin) override {
    auto* logits = static_cast<float*>(lane_scratch().route.get(size_t(x.rows * p.experts) * 4));
    const cuda::ops::View lv{logits, x.rows, p.experts, p.experts};
    cuda::ops::dense_linear(ref(w.gate), 1, view(x), lv, false, 1.0f, queue());
    const ControlId plant = planted_control();
    std::vector<int32_t> next_tokens;
    if (plant == kHashReadsNextToken)
      for (int32_t t : tokens) next_tokens.push_back(int32_t((t + 1) % w.tid2eid.rows));
    const float route_scale = plant == kRouteScaleSkipped ? 1.0f : float(p.route_scale);
    cuda::ops::route({p.experts, p.topk, route_scale, p.hash}, lv, ref(w.bias), ref(w.tid2eid),
                     next_tokens.empty() ? stage(tokens) : stage(next_tokens), view(ids), view(weights),
                     margin ? static_cast<float*>(margin->data) : nullptr, margin ? margin->stride : 0, queue());
  }

  void routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x, const Tensor& ids,
                      const Tensor& weights, const Tensor& out) override {
    run_experts(p, experts, x, ids, weights, nullptr, out);
  }
  // One launch fewer on every MoE sublayer's chain: the experts' combine adds the addend after joining the lanes
  // (PLUMB_FUSED_MOE_ADD=0: the default's routed_experts, join_lanes and add; the same bits).
  void routed_experts_add(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x, const Tensor& ids,
                          const Tensor& weights, const Tensor& addend, const Tensor& routed,
                          const Tensor& out) override {
    if (!fused_moe_add_) return Backend::routed_experts_add(p, experts, x, ids, weights, addend, routed, out);
    PLUMB_CHECK(addend.dtype == DType::dtype_f32 && addend.rows == out.rows && addend.cols == out.cols);
    run_experts(p, experts, x, ids, weights, &addend, out);
  }

  void shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) override {
    auto* a = static_cast<float*>(lane_scratch().shared.get(size_t(2 * x.rows * p.inter) * 4));
    const Tensor ta = Tensor::of(a, DType::dtype_f32, x.rows, p.inter);
    const Tensor tb = Tensor::of(a + x.rows * p.inter, DType::dtype_f32, x.rows, p.inter);
    const LinearParams fp8{.quantize_input = true};
    gate_and_up(w.w1, w.w3, x, ta, tb);
    const float limit = planted(kSharedClamped) ? 10.0f : float(p.swiglu_limit);
    cuda::ops::swiglu(view(ta), view(tb), limit, view(ta), queue());
    linear(fp8, w.w2, ta, out);
  }

  void add(const Tensor& a, const Tensor& b, const Tensor& out) override {
    cuda::ops::add(view(a), view(b), view(out), queue());
  }

 private:
  static cuda::ops::HcArgs hc(const HcParams& p) { return {p.hc_mult, p.hidden, p.sinkhorn_iters, p.hc_eps, p.norm_eps}; }

  const void* copy_to_device(const void* host, size_t bytes) {
    weights_.emplace_back(std::max<size_t>(bytes, 1));
    weights_.back().upload(host, bytes);
    return weights_.back().get();
  }

  // Host metadata -> device memory the queued launches read: kept in the queue's pinned staging and sent at the
  // flush, before the launches (launch_queue.h).
  template <typename T>
  const T* stage(std::span<const T> host) {
    if (host.empty()) return nullptr;
    return static_cast<const T*>(queue_->stage(host.data(), host.size_bytes()));
  }
  template <typename T>
  const T* stage(const std::vector<T>& host) { return stage(std::span<const T>(host)); }
  const int64_t* stage_rows(std::span<const TokenRow> rows) {
    std::vector<int64_t> pairs;
    for (const auto& r : rows) pairs.insert(pairs.end(), {int64_t(r.slot), r.position});
    return stage(pairs);
  }

  // hc_pre, with its planted controls, and with norm its output's RMSNorm in the same launch.
  void run_hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
                  const Tensor& comb, const cuda::ops::HcNorm* norm) {
    if (planted(kSinkhornOneRound)) p.sinkhorn_iters = 1;
    cuda::ops::HcArgs args = hc(p);
    args.rms_over_first_stream = planted(kPreRmsOverFirstStream);
    cuda::ops::hc_pre(args, ref(w.fn), ref(w.base), ref(w.scale), view(x), view(y), view(post), view(comb),
                      hc_scratch(x.rows), queue(), norm);
  }

  // The routed experts into out (float32, unrounded), or with addend: out = bf16(sum + addend), as add would make
  // it, the lanes joined before the combine reads the addend.
  void run_experts(const ExpertParams& p, std::span<const ExpertWeights> experts, const Tensor& x, const Tensor& ids,
                   const Tensor& weights, const Tensor* addend, const Tensor& out) {
    PLUMB_CHECK(ids.contiguous() && weights.contiguous() && out.contiguous() && ids.cols == weights.cols);
    cuda::Fp4ExpertsView v = expert_tables(experts, p);
    v.swiglu_limit = float(p.swiglu_limit);
    const size_t bytes = cuda::fp4_experts_workspace_bytes(v, x.rows, int32_t(ids.cols));
    void* ws = lane_scratch().experts.get(bytes);
    cuda::ExpertsIo io;
    io.x = x.data;
    io.x_f32 = true;
    io.x_stride = x.stride;
    io.y = out.data;
    io.y_f32 = true;
    io.round_bf16 = false;
    if (addend) {
      io.addend = static_cast<const float*>(addend->data);
      io.addend_stride = addend->stride;
      io.before_combine = [this] { join_lanes(); };
    }
    cuda::fp4_experts(v, io, x.rows, {static_cast<const int32_t*>(ids.data), static_cast<const float*>(weights.data),
                                      int32_t(ids.cols)},
                      ws, 0, queue());
  }

  // Attention, with the output's rotation in the P.V kernel's epilogue when out_rope is given.
  void run_attention(const AttentionParams& p, const RopeParams* out_rope, const Tensor& q, const Tensor& ring,
                     const Tensor& compressed, const Tensor* selected, const Weight& sinks,
                     std::span<const TokenRow> rows, const Tensor& out) {
    const ControlId plant = planted_control();
    // window_off_by_one: one position fewer; the ring is addressed as before.
    cuda::ops::AttentionArgs a{p.heads,
                               p.head_dim,
                               float(p.softmax_scale),
                               plant == kWindowOffByOne ? p.window - 1 : p.window,
                               p.ring_rows,
                               p.compress_ratio,
                               p.compressed_rows_per_slot,
                               p.block,
                               plant == kSinkLeftOut,
                               plant == kPaddingReadsRow0};
    if (out_rope) {
      const RopeParams r = with_rope_plants(*out_rope);
      a.out_rope_freqs = frequencies(r);
      a.out_rope_dims = r.rope_dims;
      a.out_rope_inverse = r.inverse;
    }
    const cuda::ops::View sel = selected ? view(*selected) : cuda::ops::View{};
    int64_t max_entries = a.window;  // the longest row's entries
    for (const auto& r : rows)
      max_entries = std::max(max_entries, cuda::ops::attention_entries(a, selected != nullptr, sel.cols, r.position));
    auto* scratch = static_cast<float*>(
        lane_scratch().attention.get(size_t(cuda::ops::attention_scratch_floats(a, q.rows, max_entries)) * 4));
    cuda::ops::attention(a, view(q), view(ring), view(compressed), selected ? &sel : nullptr, ref(sinks),
                         stage_rows(rows), max_entries, view(out), scratch, queue());
  }

  // The rope's planted controls, which the fused ops honour too.
  RopeParams with_rope_plants(RopeParams p) const {
    const ControlId plant = planted_control();
    if (plant == kInverseIgnored) p.inverse = false;
    if (plant == kYarnIgnored) p.yarn_original = 0;
    return p;
  }
  const float* frequencies(const RopeParams& p) {
    const auto key = std::make_tuple(p.rope_dims, p.theta, p.yarn_factor, p.yarn_original, p.beta_fast, p.beta_slow);
    auto it = freqs_.find(key);
    if (it == freqs_.end()) {
      const std::vector<float> f = rope_frequencies_f32(p);
      cuda::DeviceBuffer b(f.size() * 4);
      b.upload(f.data(), f.size() * 4);
      it = freqs_.emplace(key, std::move(b)).first;
    }
    return it->second.as<float>();
  }

  float* hc_scratch(int64_t rows) {
    return static_cast<float*>(lane_scratch().hc.get(size_t(cuda::ops::hc_scratch_floats(rows)) * sizeof(float)));
  }
  void* fp8_workspace(int64_t n, int64_t k, int64_t rows) {
    return lane_scratch().fp8_workspace.get(cuda::fp8_linear_workspace_bytes(n, k, rows));
  }
  // Arrival counters of every FP8 linear, apart from the scratch whose layout changes with the shape.
  unsigned* fp8_arrivals() { return static_cast<unsigned*>(lane_scratch().fp8_arrivals.get(size_t(1) << 20)); }

  cuda::Fp4ExpertsView expert_tables(std::span<const ExpertWeights> experts, const ExpertParams& p) {
    auto it = expert_tables_.find(experts.data());
    if (it == expert_tables_.end()) {
      const size_t e = experts.size();
      std::vector<const void*> t(6 * e);
      for (size_t i = 0; i < e; ++i) {
        t[0 * e + i] = experts[i].w1.data;
        t[1 * e + i] = experts[i].w1.scales;
        t[2 * e + i] = experts[i].w3.data;
        t[3 * e + i] = experts[i].w3.scales;
        t[4 * e + i] = experts[i].w2.data;
        t[5 * e + i] = experts[i].w2.scales;
      }
      cuda::DeviceBuffer b(t.size() * sizeof(void*));
      b.upload(t.data(), t.size() * sizeof(void*));
      it = expert_tables_.emplace(experts.data(), std::move(b)).first;
    }
    const auto* t = it->second.as<const uint8_t*>();
    const int64_t e = int64_t(experts.size());
    cuda::Fp4ExpertsView v;
    v.w1_codes = t;
    v.w1_scales = t + e;
    v.w3_codes = t + 2 * e;
    v.w3_scales = t + 3 * e;
    v.w2_codes = t + 4 * e;
    v.w2_scales = t + 5 * e;
    v.experts = e;
    v.hidden = p.hidden;
    v.inter = p.inter;
    return v;
  }

  cuda::Stream queue() { return cuda::Stream(queue_.get()); }

  // PLUMB_CUDA_LANES=0 keeps every op on lane 0 (an A/B switch; same bits).
  static bool lanes_enabled() {
    static const bool on = env_switch_on("PLUMB_CUDA_LANES");
    return on;
  }

  // Declared first: destroyed last, after the destructor flushed it (buffers handed out keep it alive).
  std::shared_ptr<cuda::LaunchQueue> queue_ = std::make_shared<cuda::LaunchQueue>(graphs_enabled());
  // head_rms_norm_rope and attention_rope as one launch each (the rope inside the norm and P.V kernels) unless
  // PLUMB_FUSED_ROPE=0 when the backend opens, routed_experts_add's add inside the experts' combine unless
  // PLUMB_FUSED_MOE_ADD=0, and hc_pre_norm's norm inside hc_pre's block unless PLUMB_FUSED_HC_NORM=0; switched
  // off, the ops run as their defaults do (A/B switches; the same bits).
  const bool fused_rope_ = env_switch_on("PLUMB_FUSED_ROPE");
  const bool fused_moe_add_ = env_switch_on("PLUMB_FUSED_MOE_ADD");
  const bool fused_hc_norm_ = env_switch_on("PLUMB_FUSED_HC_NORM");
  std::vector<cuda::DeviceBuffer> weights_;
  // The ops' scratch, one set a lane (launch_queue.h), since ops on two lanes may run at once; a lane's set is
  // allocated as its ops first need it.
  struct LaneScratch {
    explicit LaneScratch(cuda::LaunchQueue& q)
        : fp8_workspace(q), fp8_arrivals(q), experts(q), indexer(q), attention(q), route(q), shared(q), hc(q) {}
    Scratch fp8_workspace, fp8_arrivals, experts, indexer, attention, route, shared, hc;
  };
  std::array<std::unique_ptr<LaneScratch>, kLanes> lanes_ = [this] {
    std::array<std::unique_ptr<LaneScratch>, kLanes> a;
    for (auto& l : a) l = std::make_unique<LaneScratch>(*queue_);
    return a;
  }();
  LaneScratch& lane_scratch() { return *lanes_[size_t(queue_->lane())]; }
  std::map<std::tuple<int64_t, double, double, int64_t, double, double>, cuda::DeviceBuffer> freqs_;
  std::map<const ExpertWeights*, cuda::DeviceBuffer> expert_tables_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace plumb::kernels
#endif
