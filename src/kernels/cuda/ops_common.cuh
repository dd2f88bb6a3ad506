// Device helpers shared by the CUDA backend's op kernels: weight decoding, bf16 rounding, float32 results of
// transcendentals evaluated in double (as the CPU backend does), and block reductions in a fixed order.
#pragma once

#include <cuda_fp8.h>

#include <cstdint>

#include "kernels/cuda/mma_fp8.cuh"
#include "kernels/cuda/ops_cuda.h"

namespace plumb::cuda::ops {

__device__ __forceinline__ float bf16r(float x) { return bf16_bits_to_float(float_to_bf16_bits(x)); }

__device__ __forceinline__ float e4m3_value(uint8_t code) {
  const __half_raw h = __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(code), __NV_E4M3);
  return __half2float(__half(h));
}

// The two e4m3 codes of a 16-bit pair (the low byte first), with one hardware conversion for both (e4m3_value runs
// the same conversion for one code and drops the other half), so the values are e4m3_value's.
__device__ __forceinline__ float2 e4m3x2_values(uint16_t pair) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(pair), __NV_E4M3);
  return __half22float2(__half2(h));
}

__device__ __forceinline__ float e2m1_value(uint8_t nibble) {
  const float mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float v = mag[nibble & 7];
  return (nibble & 8) ? -v : v;
}

// Value of weight element (r, c), exactly (every stored value is a float32).
__device__ __forceinline__ float weight_at(const WeightRef& w, int64_t r, int64_t c) {
  switch (w.format) {
    case kFp8Blocks: {
      const uint8_t code = static_cast<const uint8_t*>(w.data)[r * w.cols + c];
      return e4m3_value(code) * e8m0_value(w.scales[(r / 128) * w.scale_cols + c / 128]);
    }
    case kFp4Blocks: {
      const uint8_t byte = static_cast<const uint8_t*>(w.data)[r * (w.cols / 2) + c / 2];
      return e2m1_value((c & 1) ? byte >> 4 : byte & 0xF) * e8m0_value(w.scales[r * w.scale_cols + c / 32]);
    }
    case kBf16: return bf16_bits_to_float(static_cast<const uint16_t*>(w.data)[r * w.cols + c]);
    case kF32: return static_cast<const float*>(w.data)[r * w.cols + c];
    default: return float(static_cast<const int64_t*>(w.data)[r * w.cols + c]);
  }
}

// Values c = first + k * step (k < N, c < cols) of a weight's row 0, 0 past the end: a thread's share of a norm's
// weights. bf16 and float32 rows load as plain independent loads, all issued before any is used; weight_at's format
// switch per value kept ptxas from batching them in hc_pre_norm's kernel (one round trip per value, sixteen in a
// row). rms_norm_kernel's own loop measured faster there (4.66 against 5.45 us, ncu, session 18 call 4).
template <int N>
__device__ __forceinline__ void load_weight_row(const WeightRef& w, int64_t cols, int64_t first, int64_t step,
                                                float (&out)[N]) {
  const auto in = [&](int k) { return first + k * step < cols; };
  if (w.format == kBf16) {
    const auto* row = static_cast<const uint16_t*>(w.data);
    uint16_t raw[N];
#pragma unroll
    for (int k = 0; k < N; ++k) raw[k] = in(k) ? row[first + k * step] : 0;
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = bf16_bits_to_float(raw[k]);
  } else if (w.format == kF32) {
    const auto* row = static_cast<const float*>(w.data);
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = in(k) ? row[first + k * step] : 0.0f;
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = in(k) ? weight_at(w, 0, first + k * step) : 0.0f;
  }
}

__device__ __forceinline__ float exp_f32(float x) { return float(exp(double(x))); }
__device__ __forceinline__ float sigmoid_f32(float x) { return float(1.0 / (1.0 + exp(-double(x)))); }
__device__ __forceinline__ float silu_f32(float x) { return float(double(x) / (1.0 + exp(-double(x)))); }
__device__ __forceinline__ float rsqrt_f32(float x) { return float(1.0 / sqrt(double(x))); }

template <typename T>
__device__ __forceinline__ T* row_ptr(const View& v, int64_t r) {
  return static_cast<T*>(v.data) + r * v.stride;
}

// For i = threadIdx.x, + blockDim.x, ... below n: store(i, load(i)), with kBatch loads a thread going out before
// any of their stores. One by one, each store held up the next load (a generic load may not pass a store that
// could alias it), so every value cost an L2 round trip.
template <int kBatch, typename T, typename Load, typename Store>
__device__ __forceinline__ void loads_then_stores(int n, Load load, Store store) {
  const int step = int(blockDim.x);
  for (int i0 = int(threadIdx.x); i0 < n; i0 += kBatch * step) {
    T v[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = i0 + j * step;
      if (i < n) v[j] = load(i);
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = i0 + j * step;
      if (i < n) store(i, v[j]);
    }
  }
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum of one value per thread over the block: a fixed xor tree in each warp, then the warps' sums in warp order.
// Every thread gets the result. `shared` holds at least blockDim.x / 32 floats.
__device__ __forceinline__ float block_sum(float v, float* shared) {
  v = warp_sum(v);
  const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
  __syncthreads();
  if (threadIdx.x % 32 == 0) shared[warp] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < warps; ++w) total += shared[w];
  return total;
}

// Sum over i of a(i) * b(i) for i in [0, n): thread t takes i = t, t + blockDim.x, ... in order, then block_sum.
// Operands are read kBatch steps at a time before they are summed (in the same order whatever kBatch), so loads
// overlap.
template <int kBatch = 8, typename A, typename B>
__device__ __forceinline__ float block_dot(int64_t n, A a, B b, float* shared) {
  float acc = 0.0f;
  const int64_t step = blockDim.x;
  int64_t i = threadIdx.x;
  for (; i + (kBatch - 1) * step < n; i += kBatch * step) {
    float av[kBatch], bv[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) av[j] = a(i + j * step), bv[j] = b(i + j * step);
#pragma unroll
    for (int j = 0; j < kBatch; ++j) acc = fmaf(av[j], bv[j], acc);
  }
  for (; i < n; i += step) acc = fmaf(a(i), b(i), acc);
  return block_sum(acc, shared);
}

// RoPE (the rope, head norm and attention kernels share it). A pair's cos and sin at a position: the float32 angle,
// then cos and sin in double, as the CPU backend evaluates them.
__device__ __forceinline__ float2 rope_cos_sin(float position, float freq) {
  const float angle = position * freq;
  return make_float2(float(cos(double(angle))), float(sin(double(angle))));
}
// The pair (a, b) rotated by the angle of (cs.x, cs.y), or back (inverse), in bf16: each product rounded, then the
// sum, as the CPU backend (built with -ffp-contract=off); written out so the compiler cannot fuse a product into
// the sum, which side depending on the code around it.
__device__ __forceinline__ float2 rope_rotate(float a, float b, float2 cs, bool inverse) {
  if (inverse)
    return make_float2(bf16r(__fadd_rn(__fmul_rn(a, cs.x), __fmul_rn(b, cs.y))),
                       bf16r(__fsub_rn(__fmul_rn(b, cs.x), __fmul_rn(a, cs.y))));
  return make_float2(bf16r(__fsub_rn(__fmul_rn(a, cs.x), __fmul_rn(b, cs.y))),
                     bf16r(__fadd_rn(__fmul_rn(a, cs.y), __fmul_rn(b, cs.x))));
}

inline unsigned blocks_for(int64_t n, int threads) { return unsigned((n + threads - 1) / threads); }

}  // namespace plumb::cuda::ops
