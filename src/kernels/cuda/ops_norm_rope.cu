// CUDA backend norms and RoPE (release numerics; ops_cuda.h): RMSNorm, the per-head q norm (with its rope after it
// for Backend::head_rms_norm_rope) and the rope on its own.
#include "base/env_switch.h"
#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/ops_common.cuh"

namespace plumb::cuda::ops {
namespace {

const kernels::ControlId kFirstHeadScale = kernels::register_control(
    "head_rms_norm_cuda", "first_head_scale", "every head is divided by the first head's RMS");

// Rows of up to kNormPerThread * blockDim.x values: a thread keeps its x values and loads its weights before the
// reduction, so the weights' latency overlaps the sum instead of following it. The sum is block_dot's: each thread
// accumulates its values with fmaf in ascending order, then block_sum.
constexpr int kNormPerThread = 16;
__global__ void rms_norm_kernel(WeightRef w, float eps, View x, View y) {
  kernel_prologue();
  __shared__ float shared[32];
  const int64_t r = blockIdx.x;
  const float* in = row_ptr<const float>(x, r);
  if (x.cols <= kNormPerThread * int64_t(blockDim.x)) {
    float xv[kNormPerThread], wv[kNormPerThread];
#pragma unroll
    for (int k = 0; k < kNormPerThread; ++k) {
      const int64_t c = threadIdx.x + int64_t(k) * blockDim.x;
      xv[k] = c < x.cols ? in[c] : 0.0f;
      wv[k] = c < x.cols ? weight_at(w, 0, c) : 0.0f;
    }
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < kNormPerThread; ++k)
      if (threadIdx.x + int64_t(k) * blockDim.x < x.cols) acc = fmaf(xv[k], xv[k], acc);
    const float scale = rsqrt_f32(block_sum(acc, shared) * (1.0f / float(x.cols)) + eps);
#pragma unroll
    for (int k = 0; k < kNormPerThread; ++k) {
      const int64_t c = threadIdx.x + int64_t(k) * blockDim.x;
      if (c < x.cols) row_ptr<float>(y, r)[c] = bf16r(wv[k] * (xv[k] * scale));
    }
    return;
  }
  const float ss = block_dot(x.cols, [&](int64_t i) { return in[i]; }, [&](int64_t i) { return in[i]; }, shared);
  const float scale = rsqrt_f32(ss * (1.0f / float(x.cols)) + eps);
  for (int64_t c = threadIdx.x; c < x.cols; c += blockDim.x)
    row_ptr<float>(y, r)[c] = bf16r(weight_at(w, 0, c) * (in[c] * scale));
}

// Rows of exactly N * T values with bf16 or float32 weights (the model's norms: 4096, 1024, 512 and, in the tiny
// models, 256 and 128 wide): rms_norm_kernel's sums, scale and roundings with the width, stride and weight format
// known at compile time and the weights loaded before the PDL wait. At T = 128 the block's four missing warps would
// add zeros to the block sum, which changes nothing. Why: in a chain of one-row 4096-wide norms through a
// LaunchQueue (H200, session 33) rms_norm_kernel took 2.8 us a launch; its runtime stride with bounds checks cost
// 0.7 of that and its weights through weight_at after the wait another 0.7.
template <int N, int T, bool kF32Weights>
__global__ void __launch_bounds__(T) rms_norm_fixed_kernel(const void* __restrict__ w, float eps,
                                                          const float* __restrict__ x, int64_t x_stride,
                                                          float* __restrict__ y, int64_t y_stride) {
  __shared__ float shared[32];
  float wv[N], xv[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int c = int(threadIdx.x) + k * T;
    wv[k] = kF32Weights ? static_cast<const float*>(w)[c] : bf16_bits_to_float(static_cast<const uint16_t*>(w)[c]);
  }
  kernel_prologue();
  const float* in = x + int64_t(blockIdx.x) * x_stride;
#pragma unroll
  for (int k = 0; k < N; ++k) xv[k] = in[int(threadIdx.x) + k * T];
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < N; ++k) acc = fmaf(xv[k], xv[k], acc);
  const float scale = rsqrt_f32(block_sum(acc, shared) * (1.0f / float(N * T)) + eps);
  float* out = y + int64_t(blockIdx.x) * y_stride;
#pragma unroll
  for (int k = 0; k < N; ++k) out[int(threadIdx.x) + k * T] = bf16r(wv[k] * (xv[k] * scale));
}

// PLUMB_NORM_FIXED=0 sends every row through rms_norm_kernel (an A/B switch; the same bits).
bool norm_fixed_enabled() {
  static const bool on = env_switch_on("PLUMB_NORM_FIXED");
  return on;
}

template <int N, int T>
bool launch_fixed_norm(const WeightRef& w, float eps, View x, View y, Stream s) {
  if (x.cols != int64_t(N) * T) return false;
  auto kernel = w.format == kF32 ? rms_norm_fixed_kernel<N, T, true> : rms_norm_fixed_kernel<N, T, false>;
  launch(s, "rms_norm", kernel, dim3(unsigned(x.rows)), dim3(T), 0, w.data, eps,
         static_cast<const float*>(x.data), x.stride, static_cast<float*>(y.data), y.stride);
  return true;
}

// The release's per-head q norm in bf16 tensor ops: squares, mean, eps, rsqrt and product each rounded to bf16.
// A block takes heads_per_block consecutive heads (1; all of them when the first_head_scale control is planted, so
// the first head's scale is known before any head is written). kRope: each head's rope dims are then rotated as
// rope_kernel does (head_rms_norm_rope: one launch where there were two).
constexpr int kMaxRopePairs = 128;
template <bool kRope>
__global__ void head_rms_norm_kernel(int64_t head_dim, int64_t heads_per_block, float eps, bool first_head_scale,
                                     HeadRope rope, View x) {
  __shared__ float shared[32];
  __shared__ float2 angle[kRope ? kMaxRopePairs : 1];
  const int pairs = kRope ? int(rope.rope_dims / 2) : 0;
  // The angles need the row's position (staged by the host) and constant frequencies only: before the wait.
  if (kRope)
    for (int k = threadIdx.x; k < pairs; k += blockDim.x)
      angle[k] = rope_cos_sin(float(rope.positions[blockIdx.x]), rope.freqs[k]);
  kernel_prologue();
  float first = 0.0f;
  for (int64_t k = 0; k < heads_per_block; ++k) {
    const int64_t h = int64_t(blockIdx.y) * heads_per_block + k;
    float* head = row_ptr<float>(x, blockIdx.x) + h * head_dim;
    const float sum =
        block_dot(head_dim, [&](int64_t i) { return bf16r(head[i] * head[i]); }, [](int64_t) { return 1.0f; }, shared);
    const float mean = bf16r(sum * (1.0f / float(head_dim)));
    float scale = bf16r(rsqrt_f32(bf16r(mean + eps)));
    if (h == 0) first = scale;
    if (first_head_scale) scale = first;
    __syncthreads();
    for (int64_t c = threadIdx.x; c < head_dim; c += blockDim.x) head[c] = bf16r(head[c] * scale);
    __syncthreads();
    if (kRope) {  // the block's own writes above, visible after the barrier
      float* tail = head + (head_dim - rope.rope_dims);
      for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
        const float2 v = rope_rotate(tail[2 * i], tail[2 * i + 1], angle[i], rope.inverse);
        tail[2 * i] = v.x;
        tail[2 * i + 1] = v.y;
      }
    }
  }
}

// The angles depend on the position and the pair alone, so a block evaluates each pair's cos and sin once into
// shared memory and every head reads them.
__global__ void rope_kernel(int64_t head_dim, int64_t rope_dims, bool inverse, const float* freqs,
                            const int64_t* positions, View x) {
  kernel_prologue();
  __shared__ float cos_table[kMaxRopePairs], sin_table[kMaxRopePairs];
  const int64_t r = blockIdx.x, pairs = rope_dims / 2, heads = x.cols / head_dim;
  const float position = float(positions[r]);
  for (int64_t k = threadIdx.x; k < pairs; k += blockDim.x) {
    const float2 cs = rope_cos_sin(position, freqs[k]);
    cos_table[k] = cs.x;
    sin_table[k] = cs.y;
  }
  __syncthreads();
  const int p = int(pairs);
  float* row = row_ptr<float>(x, r) + (head_dim - rope_dims);
  auto pair_at = [&](int i) { return row + (i / p) * head_dim + 2 * (i % p); };
  loads_then_stores<8, float2>(
      int(pairs * heads), [&](int i) { return make_float2(pair_at(i)[0], pair_at(i)[1]); },
      [&](int i, float2 v) {
        const int k = i % p;
        const float2 out = rope_rotate(v.x, v.y, make_float2(cos_table[k], sin_table[k]), inverse);
        float* pair = pair_at(i);
        pair[0] = out.x;
        pair[1] = out.y;
      });
}

}  // namespace

void rms_norm(const WeightRef& w, double eps, View x, View y, Stream s) {
  if (x.rows == 0) return;
  if (norm_fixed_enabled() && (w.format == kBf16 || w.format == kF32) &&
      (launch_fixed_norm<1, 128>(w, float(eps), x, y, s) || launch_fixed_norm<1, 256>(w, float(eps), x, y, s) ||
       launch_fixed_norm<2, 256>(w, float(eps), x, y, s) || launch_fixed_norm<4, 256>(w, float(eps), x, y, s) ||
       launch_fixed_norm<16, 256>(w, float(eps), x, y, s)))
    return;
  launch(s, "rms_norm", rms_norm_kernel, dim3(unsigned(x.rows)), dim3(256), 0, w, float(eps), x, y);
}

void head_rms_norm(int64_t heads, int64_t head_dim, double eps, View x, Stream s, const HeadRope* rope) {
  if (x.rows == 0) return;
  PLUMB_CHECK(!rope ||
              (rope->rope_dims % 2 == 0 && rope->rope_dims / 2 <= kMaxRopePairs && rope->rope_dims <= head_dim));
  const bool first_head_scale = kernels::planted(kFirstHeadScale);
  const int64_t per_block = first_head_scale ? heads : 1;
  const dim3 grid(unsigned(x.rows), unsigned(heads / per_block));
  if (rope) {
    launch(s, "head_rms_norm_rope", head_rms_norm_kernel<true>, grid, dim3(128), 0, head_dim, per_block, float(eps),
           first_head_scale, *rope, x);
  } else {
    launch(s, "head_rms_norm", head_rms_norm_kernel<false>, grid, dim3(128), 0, head_dim, per_block, float(eps),
           first_head_scale, HeadRope{}, x);
  }
}

void rope(int64_t head_dim, int64_t rope_dims, bool inverse, const float* freqs, const int64_t* positions, View x,
          Stream s) {
  if (x.rows == 0) return;
  PLUMB_CHECK(rope_dims / 2 <= kMaxRopePairs);
  launch(s, "rope", rope_kernel, dim3(unsigned(x.rows)), dim3(256), 0, head_dim, rope_dims, inverse, freqs, positions, x);
}

}  // namespace plumb::cuda::ops
