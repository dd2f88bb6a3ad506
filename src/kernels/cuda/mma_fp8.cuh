// The one FP8 matrix instruction plumb's GPU linears use (m16n8k32, e4m3 x e4m3 -> f32), and small device helpers
// shared by the FP8 and FP4 kernels.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdint>

namespace plumb::cuda {

// D = A B + D for one 16x32 (A, row-major) by 32x8 (B, column-major) e4m3 tile, fp32 accumulators.
// Hopper has no such instruction: the compiler emulates it (SASS in docs/receipts/data/2026-11-30-session7/call4/):
// twelve F2FP widen A and B to f16, two HMMA.16816.F32 follow (bytes 0-1 of each register from a zero accumulator,
// then bytes 2-3 on top), and four FADDs add C. So about 18 instructions an MMA; the native FP8 path is wgmma.
// Fragments (lane = 4 g + t): a0 = A[g][4t..4t+3], a1 = A[g+8][4t..], a2 = A[g][4t+16..], a3 = A[g+8][4t+16..];
// b0 = B[4t..4t+3][g], b1 = B[4t+16..][g]; d0,d1 = D[g][2t, 2t+1], d2,d3 = D[g+8][2t, 2t+1].
__device__ __forceinline__ void mma_e4m3_16x8x32(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                                 uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// D = A B (no C) for the same e4m3 tile, written as the emulation's own two f16 HMMAs: each register's e4m3 bytes
// 0-1 widened to f16 (exact) and summed from a zero accumulator, then bytes 2-3 on top. It leaves out the
// emulation's final four FADDs of a zero C, which change nothing but a -0 sum into +0 and a NaN's payload into the
// canonical one: callers multiply D (which canonicalizes a NaN too) and add it into a +0-started accumulator, where
// -0 and +0 are the same.
__device__ __forceinline__ uint32_t e4m3x2_to_f16x2(uint32_t word, int half) {
  uint32_t h;
  if (half == 0) {
    asm("{\n .reg .b16 lo, hi;\n mov.b32 {lo, hi}, %1;\n cvt.rn.f16x2.e4m3x2 %0, lo;\n}" : "=r"(h) : "r"(word));
  } else {
    asm("{\n .reg .b16 lo, hi;\n mov.b32 {lo, hi}, %1;\n cvt.rn.f16x2.e4m3x2 %0, hi;\n}" : "=r"(h) : "r"(word));
  }
  return h;
}
__device__ __forceinline__ void mma_e4m3_16x8x32_no_c(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                                      uint32_t a3, uint32_t b0, uint32_t b1) {
  float z[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(e4m3x2_to_f16x2(a0, half)), "r"(e4m3x2_to_f16x2(a1, half)), "r"(e4m3x2_to_f16x2(a2, half)),
          "r"(e4m3x2_to_f16x2(a3, half)), "r"(e4m3x2_to_f16x2(b0, half)), "r"(e4m3x2_to_f16x2(b1, half)),
          "f"(z[0]), "f"(z[1]), "f"(z[2]), "f"(z[3]));
#pragma unroll
    for (int i = 0; i < 4; ++i) z[i] = d[i];
  }
}

// Weights are read once per launch: keep them out of L1. An explicit L2 policy lost (session 26 call 2): evict-first
// +2.4% on the round at one row against these plain loads (the policy's registers and spills), evict-normal +9.7%
// (the small kernels between the weight kernels 20-50% slower: their reads stopped hitting the L2).
__device__ __forceinline__ uint4 load_stream_16(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// 2^(e - 127) built from its bits (e = 0 is the subnormal 2^-127), 255 = NaN: the same values as ldexpf in a few
// integer instructions, which matters in the expert kernels' inner loop.
__device__ __forceinline__ float e8m0_value(uint8_t e) {
  return e == 255 ? __int_as_float(0x7fc00000) : e == 0 ? __uint_as_float(0x00400000u) : __uint_as_float(uint32_t(e) << 23);
}

__device__ __forceinline__ float bf16_bits_to_float(uint16_t b) { return __uint_as_float(uint32_t(b) << 16); }
__device__ __forceinline__ uint16_t float_to_bf16_bits(float f) {
  const __nv_bfloat16 h = __float2bfloat16_rn(f);
  return *reinterpret_cast<const uint16_t*>(&h);
}

// A linear's output from its float32 sum, as the release writes it: rounded to bf16 (when round), then times the
// output scale and rounded again (a scale of 1 skips both).
__device__ __forceinline__ float linear_output(float sum, bool round, float scale) {
  float v = round ? bf16_bits_to_float(float_to_bf16_bits(sum)) : sum;
  if (scale != 1.0f) {
    v *= scale;
    if (round) v = bf16_bits_to_float(float_to_bf16_bits(v));
  }
  return v;
}

// The release's power-of-two scale: 2^ceil(log2(max(amax, 1e-4) / fmax)), the log read off the float's bits.
__device__ __forceinline__ int pow2_scale_exponent_dev(float amax, float fmax) {
  const float s = __fdiv_rn(fmaxf(amax, 1e-4f), fmax);
  const uint32_t b = __float_as_uint(s);
  return int((b >> 23) & 0xff) - 127 + ((b & 0x7fffff) != 0 ? 1 : 0);
}

__device__ __forceinline__ uint8_t float_to_e4m3(float x) {
  return uint8_t(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
}

// The 4 activations x[at..at+3] a lane quantizes: x holds bf16 bits, or float32 when f32.
__device__ __forceinline__ void load_activations_4(const void* x, bool f32, int64_t at, float (&v)[4]) {
  for (int i = 0; i < 4; ++i)
    v[i] = f32 ? static_cast<const float*>(x)[at + i] : bf16_bits_to_float(static_cast<const uint16_t*>(x)[at + i]);
}

// One 128-wide K block of one row, a warp holding 4 values a lane: amax over the warp, the power-of-two scale and
// the lane's 4 e4m3 codes (packed). Dividing by a power of two is multiplying by its exact reciprocal (an Inf
// block's reciprocal is 0, so its codes become NaN, and its finite values 0, exactly as a division by Inf would).
__device__ __forceinline__ float quantize_block_128(const float (&v)[4], uint32_t& packed) {
  float amax = fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3])));
  for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  const int e = pow2_scale_exponent_dev(amax, 448.0f);
  const float inv = e >= 128 ? 0.0f : ldexpf(1.0f, -e);
  packed = 0;
  for (int i = 0; i < 4; ++i) packed |= uint32_t(float_to_e4m3(v[i] * inv)) << (8 * i);
  return ldexpf(1.0f, e);
}

}  // namespace plumb::cuda
