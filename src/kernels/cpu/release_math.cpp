// FP8 activation quantization and FP8/FP4 rounding simulation, per the release's act_quant / fp4_act_quant.
#include "kernels/cpu/release_math.h"

#include <algorithm>

#include "kernels/control.h"

namespace plumb::kernels::cpu {
namespace {

const ControlId kScaleExponentOffByOne = register_control(
    "act_quant", "scale_exponent_off_by_one", "the simulated rounding uses half the release's block scale");
const ControlId kScalePer64 = register_control("act_quant", "scale_per_64",
                                               "the FP4 rounding takes its scale over 64 values instead of 32");

float block_amax(const float* x, int64_t n) {
  float amax = 0.0f;
  for (int64_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
  return amax;
}

}  // namespace

int ceil_log2_scale(float amax, float fmax, float floor) {
  if (std::isinf(amax)) return 128;  // the scale overflows to infinity, as the float32 division does for FP8
  const double ratio = double(std::max(amax, floor)) / double(fmax);
  int e;
  const double m = std::frexp(ratio, &e);  // ratio = m * 2^e, m in [0.5, 1)
  return m == 0.5 ? e - 1 : e;
}

void quantize_fp8_activation(const float* x, int64_t n, float* q, float* scale) {
  for (int64_t b = 0; b * kActBlock < n; ++b) {
    const int64_t begin = b * kActBlock, len = std::min(kActBlock, n - begin);
    const int e = pow2_scale_exponent(block_amax(x + begin, len), kE4m3Max);
    scale[b] = std::ldexp(1.0f, e);
    for (int64_t i = begin; i < begin + len; ++i)
      q[i] = round_e4m3(std::clamp(std::ldexp(x[i], -e), -kE4m3Max, kE4m3Max));
  }
}

void simulate_fp8(float* x, int64_t n, int64_t block) {
  const int shift = planted(kScaleExponentOffByOne) ? 1 : 0;
  for (int64_t begin = 0; begin < n; begin += block) {
    const int64_t len = std::min(block, n - begin);
    const int e = pow2_scale_exponent(block_amax(x + begin, len), kE4m3Max) - shift;
    for (int64_t i = begin; i < begin + len; ++i)
      x[i] = bf16(std::ldexp(round_e4m3(std::clamp(std::ldexp(x[i], -e), -kE4m3Max, kE4m3Max)), e));
  }
}

void simulate_fp4(float* x, int64_t n, int64_t block) {
  const float floor = kE2m1Max * std::ldexp(1.0f, -126);
  const ControlId plant = planted_control();
  const int shift = plant == kScaleExponentOffByOne ? 1 : 0;
  const int64_t scale_span = plant == kScalePer64 ? 2 * block : block;
  for (int64_t begin = 0; begin < n; begin += block) {
    const int64_t len = std::min(block, n - begin), span_begin = begin / scale_span * scale_span;
    const float amax = block_amax(x + span_begin, std::min(scale_span, n - span_begin));
    const int e = ceil_log2_scale(amax, kE2m1Max, floor) - shift;
    for (int64_t i = begin; i < begin + len; ++i) {
      if (std::isnan(x[i])) continue;  // e2m1 has no NaN code: a NaN stays NaN rather than becoming 6
      x[i] = bf16(std::ldexp(round_e2m1(std::clamp(std::ldexp(x[i], -e), -kE2m1Max, kE2m1Max)), e));
    }
  }
}

}  // namespace plumb::kernels::cpu
