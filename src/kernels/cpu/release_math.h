// Arithmetic building blocks of the release numerics on the CPU (dsv4-forward.md section 10), each with one fixed
// order of operations: bf16 rounding, float32 dot products (eight interleaved partial sums joined by a fixed tree),
// FP8 activation quantization per block of 128, FP8/FP4 rounding simulation, and float32 transcendentals
// (evaluated in double and rounded once, so they are deterministic and correctly rounded in practice).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "base/number_formats.h"

namespace plumb::kernels::cpu {

inline float bf16(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u) return std::numeric_limits<float>::quiet_NaN();
  b += 0x7fffu + ((b >> 16) & 1u);
  b &= 0xffff0000u;
  float r;
  std::memcpy(&r, &b, 4);
  return r;
}

inline float exp_f32(float x) { return float(std::exp(double(x))); }
inline float sigmoid_f32(float x) { return float(1.0 / (1.0 + std::exp(-double(x)))); }
inline float silu_f32(float x) { return float(double(x) / (1.0 + std::exp(-double(x)))); }
inline float rsqrt_f32(float x) { return float(1.0 / std::sqrt(double(x))); }

// Eight float32 lanes as two 4-wide vectors: each lane is its own sequential sum (a multiply, then an add, both
// rounded as scalar float32), so vector code gives the scalar order's bits.
namespace lanes {
typedef float v4 __attribute__((vector_size(16)));
inline v4 load(const float* p) {
  v4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
// ((0+1)+(2+3))+((4+5)+(6+7)) over the eight lanes.
inline float join(v4 lo, v4 hi) {
  return ((lo[0] + lo[1]) + (lo[2] + lo[3])) + ((hi[0] + hi[1]) + (hi[2] + hi[3]));
}
}  // namespace lanes

// sum_k a[k] * b[k] in float32: partial sum l takes k = l mod 8, then ((0+1)+(2+3))+((4+5)+(6+7)).
inline float dot_f32(const float* a, const float* b, int64_t n) {
  lanes::v4 lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    lo += lanes::load(a + k) * lanes::load(b + k);
    hi += lanes::load(a + k + 4) * lanes::load(b + k + 4);
  }
  for (int l = 0; k + l < n; ++l) (l < 4 ? lo[l] : hi[l - 4]) += a[k + l] * b[k + l];
  return lanes::join(lo, hi);
}

// sum_k a[k] in float32 with the same partial sums and tree as dot_f32.
inline float sum_f32(const float* a, int64_t n) {
  lanes::v4 lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    lo += lanes::load(a + k);
    hi += lanes::load(a + k + 4);
  }
  for (int l = 0; k + l < n; ++l) (l < 4 ? lo[l] : hi[l - 4]) += a[k + l];
  return lanes::join(lo, hi);
}

constexpr int64_t kActBlock = 128;  // FP8 activation quantization block along K

// FP8 activation quantization of n values (release act_quant): per block of 128, scale 2^ceil(log2(amax/448))
// (amax floored at 1e-4), q = e4m3(x / scale). q holds the e4m3 values, scale one power of two per block.
void quantize_fp8_activation(const float* x, int64_t n, float* q, float* scale);

// In place: blocks of `block` values rounded through e4m3 (FP8) or e2m1 (FP4) with a power-of-two scale, then
// bf16 (release act_quant / fp4_act_quant with inplace=True). Non-finite values, as the GPU's max and casts treat
// them: a NaN is left out of the block maximum and stays NaN; an infinite maximum makes the scale 2^128, so an
// infinity stays infinite and the block's finite values become 0.
void simulate_fp8(float* x, int64_t n, int64_t block);
void simulate_fp4(float* x, int64_t n, int64_t block);

// The exponent e of the smallest power of two with amax / 2^e <= fmax, amax floored at `floor`; 128 for infinity.
int ceil_log2_scale(float amax, float fmax, float floor);

}  // namespace plumb::kernels::cpu
