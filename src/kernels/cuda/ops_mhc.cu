// CUDA backend mHC ops (dsv4-forward.md section 6): mixes as fixed-order block dot products, the small scalar work
// (sigmoids, Sinkhorn) a lane per value in the CPU backend's order, and the collapse / post mixes per element.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/ops_common.cuh"

namespace plumb::cuda::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxMixes = 64;

// mixes[r][m] = (fn[m] . x[r]) * rsqrt(mean(x[r]^2) + norm_eps): one block per (row, mix), so the mixes' long dot
// products run side by side (each block recomputes the row's mean square, the same float every time).
__global__ void hc_mix_kernel(HcArgs p, WeightRef fn, View x, float* mixes) {
  kernel_prologue();
  __shared__ float shared[32];
  const int64_t r = blockIdx.x, m = blockIdx.y;
  const float* in = row_ptr<const float>(x, r);
  const int64_t n = p.hc_mult * p.hidden, n_rms = p.rms_over_first_stream ? p.hidden : n;
  // 32 steps of loads in flight per thread (block_dot's order is the same for any batch): a block has one long
  // dot to do, so its time was DRAM latency times the number of batches. (One sweep for both sums, reading x once,
  // measured no faster: 9.9 -> 9.6 us, H200.)
  const float ss = block_dot<32>(n_rms, [&](int64_t i) { return in[i]; }, [&](int64_t i) { return in[i]; }, shared);
  const float rho = rsqrt_f32(ss * (1.0f / float(n_rms)) + float(p.norm_eps));
  // float32 mixes are read as a plain row, not through weight_at's format switch and index math per element.
  const float* row = fn.format == kF32 ? static_cast<const float*>(fn.data) + m * fn.cols : nullptr;
  const float dot =
      row ? block_dot<32>(n, [&](int64_t i) { return row[i]; }, [&](int64_t i) { return in[i]; }, shared)
          : block_dot<32>(n, [&](int64_t i) { return weight_at(fn, m, i); }, [&](int64_t i) { return in[i]; }, shared);
  if (threadIdx.x == 0) mixes[r * kMaxMixes + m] = dot * rho;
}

// Sinkhorn on the hc x hc matrix c (shared memory), by the lanes of one warp: lane j takes row j in the row steps
// and column j in the column steps, each in the CPU backend's order, so every element sees the same operations.
__device__ void sinkhorn(float* c, int64_t hc, int64_t iters, float eps, int lane) {
  const bool mine = lane < hc;
  if (mine) {
    float* row = c + lane * hc;
    float m = row[0];
    for (int64_t k = 1; k < hc; ++k) m = fmaxf(m, row[k]);
    float sum = 0.0f;
    for (int64_t k = 0; k < hc; ++k) sum += (row[k] = exp_f32(row[k] - m));
    for (int64_t k = 0; k < hc; ++k) row[k] = row[k] / sum + eps;
  }
  __syncwarp();
  for (int64_t it = 0; it < iters; ++it) {
    if (it > 0) {
      if (mine) {
        float sum = 0.0f;
        for (int64_t k = 0; k < hc; ++k) sum += c[lane * hc + k];
        for (int64_t k = 0; k < hc; ++k) c[lane * hc + k] /= sum + eps;
      }
      __syncwarp();
    }
    if (mine) {
      float sum = 0.0f;
      for (int64_t j = 0; j < hc; ++j) sum += c[j * hc + lane];
      for (int64_t j = 0; j < hc; ++j) c[j * hc + lane] /= sum + eps;
    }
    __syncwarp();
  }
}

// The same Sinkhorn for hc = 4 with a lane per element: lane l (and l + 16) holds c[l / 4][l % 4] in a register
// and gathers its row or column with shuffles, so each step costs a few shuffles and one division instead of a
// shared-memory round trip per value. Sums and maxima take the elements in the order sinkhorn() does.
__device__ float sinkhorn4(float v, int64_t iters, float eps, int lane) {
  const int i = (lane & 15) / 4, j = lane & 3;
  const auto row = [&](float x, int k) { return __shfl_sync(0xffffffffu, x, 4 * i + k); };
  const auto col = [&](float x, int k) { return __shfl_sync(0xffffffffu, x, 4 * k + j); };
  float m = row(v, 0);
#pragma unroll
  for (int k = 1; k < 4; ++k) m = fmaxf(m, row(v, k));
  v = exp_f32(v - m);
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k) sum += row(v, k);
  v = v / sum + eps;
  for (int64_t it = 0; it < iters; ++it) {
    if (it > 0) {
      sum = 0.0f;
#pragma unroll
      for (int k = 0; k < 4; ++k) sum += row(v, k);
      v /= sum + eps;
    }
    sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) sum += col(v, k);
    v /= sum + eps;
  }
  return v;
}

// hc_pre's block: kThreads threads collapse the streams and one more warp does post and Sinkhorn, which only
// hc_post reads, so the collapse does not wait on Sinkhorn's 20 dependent steps.
constexpr int kPreThreads = kThreads + 32;
// Up to 4 streams of up to 16 values a thread (kThreads threads), held in registers.
constexpr int kHeldStreams = 4, kHeldPerThread = 16;

// block_sum over the collapse's kThreads threads (the scalar warp does not wait for it): the same xor tree in each
// warp, then the warps' sums in warp order, on a named barrier of those threads.
__device__ __forceinline__ float collapse_sum(float v, float* shared, bool first_warp_only) {
  v = warp_sum(v);
  asm volatile("bar.sync 1, %0;" ::"r"(kThreads) : "memory");
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
  asm volatile("bar.sync 1, %0;" ::"r"(kThreads) : "memory");
  float total = 0.0f;
  for (int w = 0; w < (first_warp_only ? 1 : kThreads / 32); ++w) total += shared[w];
  return total;
}

// kNorm: the collapsed input's RMSNorm in the same block (Backend::hc_pre_norm), with rms_norm_kernel's arithmetic:
// a thread's values are the ones it would hold there (column threadIdx.x + q * 256), summed in the same order. One
// launch fewer on each sublayer's chain.
template <bool kNorm>
__global__ void __launch_bounds__(kPreThreads, 1) hc_pre_kernel(HcArgs p, WeightRef base, WeightRef scale,
                                                             const float* mixes, View x, View y, View post,
                                                             View comb, HcNorm norm) {
  __shared__ float pre_by_warp[kThreads / 32][16], comb_local[16 * 16], warp_sums[kThreads / 32];
  const int64_t r = blockIdx.x, hc = p.hc_mult, d = p.hidden;
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  const float eps = float(p.hc_eps);
  // The constant weights before the wait (dependent_launch.cuh allows it), so they arrive while the kernel before
  // runs: lane k's pre and post terms, lane e's comb term.
  const float s0 = weight_at(scale, 0, 0), s1 = weight_at(scale, 0, 1), s2 = weight_at(scale, 0, 2);
  const float base_pre = lane < hc ? weight_at(base, 0, lane) : 0.0f;
  const float base_post = lane < hc ? weight_at(base, 0, hc + lane) : 0.0f;
  const float base_comb = hc == 4 ? weight_at(base, 0, 8 + (lane & 15)) : 0.0f;
  // The norm's weights, constant too, all loads out at once (through weight_at one at a time, the fused kernel took
  // 12.4 us at one row for hc_pre's 6.1 and rms_norm's 4.6; ncu, H200, session 18 call 3).
  float wv[kNorm ? kHeldPerThread : 1];
  if constexpr (kNorm) load_weight_row(norm.w, d, threadIdx.x, kThreads, wv);
  kernel_prologue();
  const float* in = row_ptr<const float>(x, r);
  const float* mix = mixes + r * kMaxMixes;
  // The roundings below are spelled out: pre and post one fma, comb (hc = 4) a multiply then an add, as this kernel
  // has always rounded them (the weight was read in between, and its format switch kept the compiler from fusing
  // comb's two).
  if (warp == kThreads / 32) {  // the scalar warp: a lane per stream (or per matrix entry)
    if (lane < hc) row_ptr<float>(post, r)[lane] = 2.0f * sigmoid_f32(__fmaf_rn(mix[hc + lane], s1, base_post));
    if (hc == 4) {
      const int e = lane & 15;
      const float c = sinkhorn4(__fadd_rn(__fmul_rn(mix[8 + e], s2), base_comb), p.sinkhorn_iters, eps, lane);
      if (lane < 16) row_ptr<float>(comb, r)[e] = c;
    } else {
      float* c = comb_local;  // Sinkhorn on a shared copy: its many dependent steps never wait on global memory
      for (int64_t i = lane; i < hc * hc; i += 32) c[i] = mix[2 * hc + i] * s2 + weight_at(base, 0, 2 * hc + i);
      __syncwarp();
      sinkhorn(c, hc, p.sinkhorn_iters, eps, lane);
      for (int64_t i = lane; i < hc * hc; i += 32) row_ptr<float>(comb, r)[i] = c[i];
    }
    return;
  }
  // The streams, loaded before anything waits on them (the collapse below was one L2 round trip per value, as its
  // stores kept later loads from moving up).
  const bool held = hc <= kHeldStreams && d <= int64_t(kThreads) * kHeldPerThread;
  float xv[kHeldPerThread][kHeldStreams];
  if (held) {
#pragma unroll
    for (int q = 0; q < kHeldPerThread; ++q) {
      const int64_t j = threadIdx.x + int64_t(q) * kThreads;
#pragma unroll
      for (int k = 0; k < kHeldStreams; ++k) xv[q][k] = j < d && k < hc ? in[k * d + j] : 0.0f;
    }
  }
  // Each warp computes the pre weights itself (the same operations on the same values, so the same floats), so no
  // warp waits on another.
  float* pre = pre_by_warp[warp];
  if (lane < hc) pre[lane] = sigmoid_f32(__fmaf_rn(mix[lane], s0, base_pre)) + eps;
  __syncwarp();
  if (held) {
    float yv[kHeldPerThread];
#pragma unroll
    for (int q = 0; q < kHeldPerThread; ++q) {
      const int64_t j = threadIdx.x + int64_t(q) * kThreads;
      if (j >= d) break;
      float s = 0.0f;
#pragma unroll
      for (int k = 0; k < kHeldStreams; ++k)
        if (k < hc) s += pre[k] * xv[q][k];
      row_ptr<float>(y, r)[j] = yv[q] = bf16r(s);
    }
    if constexpr (kNorm) {
      float acc = 0.0f;
#pragma unroll
      for (int q = 0; q < kHeldPerThread; ++q)
        if (threadIdx.x + int64_t(q) * kThreads < d) acc = fmaf(yv[q], yv[q], acc);
      const float rms_scale = rsqrt_f32(collapse_sum(acc, warp_sums, norm.first_warp_only) * (1.0f / float(d)) +
                                        float(norm.eps));
#pragma unroll
      for (int q = 0; q < kHeldPerThread; ++q) {
        const int64_t j = threadIdx.x + int64_t(q) * kThreads;
        if (j < d) row_ptr<float>(norm.xn, r)[j] = bf16r(wv[q] * (yv[q] * rms_scale));
      }
    }
    return;
  }
  for (int64_t j = threadIdx.x; j < d; j += kThreads) {
    float s = 0.0f;
    for (int64_t k = 0; k < hc; ++k) s += pre[k] * in[k * d + j];
    row_ptr<float>(y, r)[j] = bf16r(s);
  }
}

__global__ void hc_post_kernel(HcArgs p, View f, View x, View post, View comb, View out) {
  kernel_prologue();
  const int64_t hc = p.hc_mult, d = p.hidden;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= x.rows * hc * d) return;
  const int64_t r = i / (hc * d), k = (i / d) % hc, j = i % d;
  const float* in = row_ptr<const float>(x, r);
  const float* c = row_ptr<const float>(comb, r);
  float s = 0.0f;
  for (int64_t src = 0; src < hc; ++src) s += c[p.comb_transposed ? k * hc + src : src * hc + k] * in[src * d + j];
  row_ptr<float>(out, r)[k * d + j] = bf16r(row_ptr<const float>(post, r)[k] * row_ptr<const float>(f, r)[j] + s);
}

__global__ void hc_head_kernel(HcArgs p, WeightRef base, WeightRef scale, const float* mixes, View x, View y) {
  kernel_prologue();
  __shared__ float mix[kMaxMixes];
  const int64_t r = blockIdx.x, hc = p.hc_mult, d = p.hidden;
  const float* in = row_ptr<const float>(x, r);
  if (threadIdx.x == 0)
    for (int64_t k = 0; k < hc; ++k)
      mix[k] = sigmoid_f32(mixes[r * kMaxMixes + k] * weight_at(scale, 0, 0) + weight_at(base, 0, k)) + float(p.hc_eps);
  __syncthreads();
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    float s = 0.0f;
    for (int64_t k = 0; k < hc; ++k) s += mix[k] * in[k * d + j];
    row_ptr<float>(y, r)[j] = bf16r(s);
  }
}

}  // namespace

int64_t hc_scratch_floats(int64_t rows) { return rows * kMaxMixes; }

bool hc_pre_can_norm(const HcArgs& p) { return p.hc_mult <= kHeldStreams && p.hidden <= kThreads * kHeldPerThread; }

void hc_pre(const HcArgs& p, const WeightRef& fn, const WeightRef& base, const WeightRef& scale, View x, View y,
            View post, View comb, float* scratch, Stream s, const HcNorm* norm) {
  PLUMB_CHECK((2 + p.hc_mult) * p.hc_mult <= kMaxMixes && p.hc_mult <= 16);
  PLUMB_CHECK(!norm || hc_pre_can_norm(p));
  if (x.rows == 0) return;
  const unsigned count = unsigned((2 + p.hc_mult) * p.hc_mult);
  launch(s, "hc_mix", hc_mix_kernel, dim3(unsigned(x.rows), count), dim3(kThreads), 0, p, fn, x, scratch);
  if (norm) {
    launch(s, "hc_pre_norm", hc_pre_kernel<true>, dim3(unsigned(x.rows)), dim3(kPreThreads), 0, p, base, scale,
           scratch, x, y, post, comb, *norm);
  } else {
    launch(s, "hc_pre", hc_pre_kernel<false>, dim3(unsigned(x.rows)), dim3(kPreThreads), 0, p, base, scale, scratch,
           x, y, post, comb, HcNorm{});
  }
}

void hc_post(const HcArgs& p, View f, View x, View post, View comb, View out, Stream s) {
  const int64_t n = x.rows * p.hc_mult * p.hidden;
  if (n == 0) return;
  launch(s, "hc_post", hc_post_kernel, dim3(blocks_for(n, 256)), dim3(256), 0, p, f, x, post, comb, out);
}

void hc_head(const HcArgs& p, const WeightRef& fn, const WeightRef& base, const WeightRef& scale, View x, View y,
             float* scratch, Stream s) {
  PLUMB_CHECK(p.hc_mult <= kMaxMixes);
  if (x.rows == 0) return;
  launch(s, "hc_mix", hc_mix_kernel, dim3(unsigned(x.rows), unsigned(p.hc_mult)), dim3(kThreads), 0, p, fn, x, scratch);
  launch(s, "hc_head", hc_head_kernel, dim3(unsigned(x.rows)), dim3(kThreads), 0, p, base, scale, scratch, x, y);
}

}  // namespace plumb::cuda::ops
