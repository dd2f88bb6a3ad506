// Exact decoding of release-format weights on host memory, shared by the ref and cpu backends: value tables for the
// narrow codes and a row decoder. Every stored value is exactly representable in float32 and float64, so decoding
// loses nothing in either.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "base/number_formats.h"
#include "kernels/tensor.h"

namespace plumb::kernels {

const std::array<float, 256>& e4m3_values();  // code -> value (NaN for 0x7f / 0xff)
const std::array<float, 16>& e2m1_values();   // nibble -> value
const std::array<float, 256>& e8m0_values();  // code -> 2^(code - 127) (NaN for 255)

inline float bf16_bits_value(uint16_t bits) {
  const uint32_t b = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Value of weight element (r, c).
double weight_value(const Weight& w, int64_t r, int64_t c);

// The exact values of row r, columns [c0, c0 + n), into out (T = float or double).
template <typename T>
void decode_weight_row(const Weight& w, int64_t r, int64_t c0, int64_t n, T* out) {
  const auto& e8m0 = e8m0_values();
  switch (w.format) {
    case WeightFormat::fp8_blocks: {
      const auto& e4m3 = e4m3_values();
      const uint8_t* codes = static_cast<const uint8_t*>(w.data) + r * w.cols;
      const uint8_t* scales = w.scales + (r / 128) * w.scale_cols();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = c0 + i;
        out[i] = T(e4m3[codes[c]]) * T(e8m0[scales[c / 128]]);
      }
      return;
    }
    case WeightFormat::fp4_blocks: {
      const auto& e2m1 = e2m1_values();
      const uint8_t* packed = static_cast<const uint8_t*>(w.data) + r * (w.cols / 2);
      const uint8_t* scales = w.scales + r * w.scale_cols();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = c0 + i;
        const uint8_t byte = packed[c / 2];
        out[i] = T(e2m1[(c & 1) ? byte >> 4 : byte & 0xF]) * T(e8m0[scales[c / 32]]);
      }
      return;
    }
    case WeightFormat::bf16: {
      const uint16_t* v = static_cast<const uint16_t*>(w.data) + r * w.cols + c0;
      for (int64_t i = 0; i < n; ++i) out[i] = T(bf16_bits_value(v[i]));
      return;
    }
    case WeightFormat::f32: {
      const float* v = static_cast<const float*>(w.data) + r * w.cols + c0;
      for (int64_t i = 0; i < n; ++i) out[i] = T(v[i]);
      return;
    }
    case WeightFormat::i64: {
      const int64_t* v = static_cast<const int64_t*>(w.data) + r * w.cols + c0;
      for (int64_t i = 0; i < n; ++i) out[i] = T(v[i]);
      return;
    }
  }
}

}  // namespace plumb::kernels
