#include "kernels/contract/inputs.h"

#include <cmath>

#include "base/number_formats.h"

namespace plumb::contract {

int32_t InputRng::uniform_int(int32_t lo, int32_t hi) {
  const uint64_t span = uint64_t(int64_t(hi) - lo + 1);
  return int32_t(lo + int64_t(bits() % span));
}

double InputRng::uniform(double lo, double hi) { return lo + (hi - lo) * double(bits() >> 11) * 0x1.0p-53; }

double InputRng::normal() {
  const double u1 = uniform(1e-300, 1.0), u2 = uniform(0.0, 1.0);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double Fp8Matrix::value(int64_t row, int64_t col) const {
  const int64_t scale_cols = (k + 127) / 128;
  return double(e4m3_to_f32(codes[size_t(row * k + col)])) * e8m0_to_f64(scales[size_t((row / 128) * scale_cols + col / 128)]);
}

Fp8Matrix random_fp8_matrix(int64_t n, int64_t k, InputRng& rng, int scale_lo, int scale_hi) {
  Fp8Matrix m;
  m.n = n;
  m.k = k;
  m.codes.resize(size_t(n * k));
  for (auto& c : m.codes) {
    do c = uint8_t(rng.bits()); while ((c & 0x7f) == 0x7f);
  }
  m.scales.resize(size_t(((n + 127) / 128) * ((k + 127) / 128)));
  for (auto& s : m.scales) s = e8m0_from_pow2_exponent(rng.uniform_int(scale_lo, scale_hi));
  return m;
}

double Fp4Matrix::value(int64_t row, int64_t col) const {
  const uint8_t byte = codes[size_t(row * (k / 2) + col / 2)];
  const uint8_t code = (col % 2 == 0) ? (byte & 0xf) : (byte >> 4);
  return double(e2m1_to_f32(code)) * e8m0_to_f64(scales[size_t(row * (k / 32) + col / 32)]);
}

Fp4Matrix random_fp4_matrix(int64_t n, int64_t k, InputRng& rng, int scale_lo, int scale_hi) {
  Fp4Matrix m;
  m.n = n;
  m.k = k;
  m.codes.resize(size_t(n * k / 2));
  for (auto& c : m.codes) c = uint8_t(rng.bits());
  m.scales.resize(size_t(n * k / 32));
  for (auto& s : m.scales) s = e8m0_from_pow2_exponent(rng.uniform_int(scale_lo, scale_hi));
  return m;
}

std::vector<uint16_t> fp8_exact_activations(int64_t rows, int64_t k, InputRng& rng, int exp_lo, int exp_hi) {
  std::vector<uint16_t> out(size_t(rows * k));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < k / 128; ++b) {
      const int e = rng.uniform_int(exp_lo, exp_hi);
      const int64_t peak = rng.uniform_int(0, 127);
      for (int64_t i = 0; i < 128; ++i) {
        uint8_t code;
        if (i == peak) {
          code = uint8_t(rng.uniform_int(0x78, 0x7e) | (rng.bits() & 0x80));  // |v| in [256, 448]
        } else {
          do code = uint8_t(rng.bits()); while ((code & 0x7f) == 0x7f || (code & 0x7f) > 0x7e);
        }
        const float v = std::ldexp(e4m3_to_f32(code), e);
        out[size_t(r * k + b * 128 + i)] = f32_to_bf16(v);
      }
    }
  }
  return out;
}

void plant_nonfinite(std::vector<uint16_t>& rows_bf16, int64_t rows, int64_t k) {
  if (rows > 1) rows_bf16[size_t(1 * k + 3)] = f32_to_bf16(NAN);
  if (rows > 2) rows_bf16[size_t(2 * k + k / 2)] = f32_to_bf16(INFINITY);
}

}  // namespace plumb::contract
