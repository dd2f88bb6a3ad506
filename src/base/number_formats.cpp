#include "base/number_formats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace plumb {
namespace {

uint32_t bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
float float_of(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}

// Value of a positive minifloat code with the given field widths (no inf/NaN handling).
double minifloat_value(unsigned code, int mantissa_bits, int bias) {
  const unsigned exponent = code >> mantissa_bits;
  const unsigned mantissa = code & ((1u << mantissa_bits) - 1);
  const double frac = double(mantissa) / double(1u << mantissa_bits);
  if (exponent == 0) return std::ldexp(frac, 1 - bias);  // subnormal
  return std::ldexp(1.0 + frac, int(exponent) - bias);
}

// Positive values of e4m3fn codes 0..126 (127 is NaN), ascending.
const std::array<float, 127>& e4m3_positive() {
  static const auto table = [] {
    std::array<float, 127> t{};
    for (unsigned c = 0; c < 127; ++c) t[c] = float(minifloat_value(c, 3, 7));
    return t;
  }();
  return table;
}

// Nearest code in an ascending table of positive values; ties go to the even code (even mantissa).
template <size_t N>
unsigned nearest_even_code(const std::array<float, N>& values, float a) {
  if (a >= values[N - 1]) return N - 1;  // saturate
  const auto it = std::upper_bound(values.begin(), values.end(), a);
  const unsigned hi = unsigned(it - values.begin());  // values[hi-1] <= a < values[hi]
  const unsigned lo = hi - 1;
  const double dlo = double(a) - values[lo], dhi = double(values[hi]) - a;
  if (dlo < dhi) return lo;
  if (dhi < dlo) return hi;
  return (lo & 1u) == 0 ? lo : hi;
}

constexpr std::array<float, 8> kE2m1Positive = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

}  // namespace

uint16_t f32_to_bf16(float x) {
  uint32_t b = bits_of(x);
  if (std::isnan(x)) return uint16_t((b >> 16) | 0x0040);  // keep sign and payload top, force quiet
  b += 0x7fffu + ((b >> 16) & 1u);
  return uint16_t(b >> 16);
}

float bf16_to_f32(uint16_t b) { return float_of(uint32_t(b) << 16); }

float e4m3_to_f32(uint8_t code) {
  const bool negative = code & 0x80;
  const unsigned magnitude = code & 0x7f;
  if (magnitude == 0x7f) return std::numeric_limits<float>::quiet_NaN();
  const float v = e4m3_positive()[magnitude];
  return negative ? -v : v;
}

uint8_t f32_to_e4m3(float x) {
  const uint8_t sign = (bits_of(x) >> 31) ? 0x80 : 0x00;
  if (std::isnan(x)) return uint8_t(sign | 0x7f);
  const float a = std::fabs(x);
  return uint8_t(sign | nearest_even_code(e4m3_positive(), a));
}

float e2m1_to_f32(uint8_t code) {
  const float v = kE2m1Positive[code & 0x7];
  return (code & 0x8) ? -v : v;
}

uint8_t f32_to_e2m1(float x) {
  if (std::isnan(x)) return 0x7;
  const uint8_t sign = (bits_of(x) >> 31) ? 0x8 : 0x0;
  return uint8_t(sign | nearest_even_code(kE2m1Positive, std::fabs(x)));
}

float e8m0_to_f32(uint8_t code) {
  if (code == 255) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, int(code) - 127);
}

double e8m0_to_f64(uint8_t code) {
  if (code == 255) return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, int(code) - 127);
}

uint8_t e8m0_from_pow2_exponent(int exponent) {
  return uint8_t(std::clamp(exponent, -127, 127) + 127);
}

int pow2_scale_exponent(float amax, float fmax) {
  // The release computes s = max(amax, 1e-4) / fmax in float32, then ceil(log2(s)) from s's bits.
  const float s = std::max(amax, 1e-4f) / fmax;
  const uint32_t b = bits_of(s);
  const int exponent = int((b >> 23) & 0xff);
  const uint32_t mantissa = b & 0x7fffffu;
  if (exponent == 0) {  // subnormal s: cannot happen for amax >= 1e-4 and fmax <= 448, kept for completeness
    return mantissa == 0 ? -127 : int(std::ceil(std::log2(double(s))));
  }
  return exponent - 127 + (mantissa != 0 ? 1 : 0);
}

}  // namespace plumb
