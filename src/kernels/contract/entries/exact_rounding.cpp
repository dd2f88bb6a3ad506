// The exact float64 block rounding oracle of activation quantization (exact_rounding.h).
#include "kernels/contract/entries/exact_rounding.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace plumb::contract {
namespace {

// Grid spacing of e4m3 (3 mantissa bits, smallest normal 2^-6) and e2m1 (1 mantissa bit, smallest normal 1) at |v|.
double grid_step(bool fp8, double v) {
  const int min_exponent = fp8 ? -6 : 0, mantissa_bits = fp8 ? 3 : 1;
  const int exponent = v == 0 ? min_exponent : std::max(min_exponent, std::ilogb(v));
  return std::ldexp(1.0, exponent - mantissa_bits);
}

// The nearest grid value, ties to the even multiple of the step (the even code), saturating at fmax.
double round_to_grid(bool fp8, double v, double fmax) {
  const double a = std::min(std::fabs(v), fmax), step = grid_step(fp8, a);
  const double q = std::min(std::nearbyint(a / step) * step, fmax);  // nearbyint: ties to even
  return std::copysign(q, v);
}

// The smallest e with amax / 2^e <= fmax, exactly (infinity: 128, as a float32 scale overflows).
int scale_exponent(double amax, double fmax) {
  if (std::isinf(amax)) return 128;
  int e = std::ilogb(amax) - std::ilogb(fmax) - 1;
  while (amax > std::ldexp(fmax, e)) ++e;
  return e;
}

}  // namespace

void round_blocks_exactly(kernels::SimFormat format, double* x, int64_t n, int64_t block) {
  const bool fp8 = format == kernels::SimFormat::fp8_e4m3;
  const double fmax = fp8 ? 448.0 : 6.0;
  // The floors as the release compares them: 1e-4 in float32 (FP8), 6 * 2^-126 (FP4).
  const double floor = fp8 ? double(1e-4f) : 6.0 * std::ldexp(1.0, -126);
  for (int64_t b0 = 0; b0 < n; b0 += block) {
    const int64_t b1 = std::min(n, b0 + block);
    double amax = 0;
    for (int64_t i = b0; i < b1; ++i)
      if (!std::isnan(x[i])) amax = std::max(amax, std::fabs(x[i]));
    const int e = scale_exponent(std::max(amax, floor), fmax);
    for (int64_t i = b0; i < b1; ++i) {
      if (std::isnan(x[i])) continue;
      const double y = std::ldexp(round_to_grid(fp8, std::ldexp(x[i], -e), fmax), e);
      // Stored as float32: a value past its range is infinite (only an infinite block reaches it).
      x[i] = std::fabs(y) > std::numeric_limits<float>::max() ? std::copysign(INFINITY, y) : y;
    }
  }
}

}  // namespace plumb::contract
