// Value tables of the narrow formats, built from the exact conversions in base/number_formats.
#include "kernels/weight_decode.h"

namespace plumb::kernels {

const std::array<float, 256>& e4m3_values() {
  static const auto table = [] {
    std::array<float, 256> t{};
    for (int c = 0; c < 256; ++c) t[size_t(c)] = e4m3_to_f32(uint8_t(c));
    return t;
  }();
  return table;
}

const std::array<float, 16>& e2m1_values() {
  static const auto table = [] {
    std::array<float, 16> t{};
    for (int c = 0; c < 16; ++c) t[size_t(c)] = e2m1_to_f32(uint8_t(c));
    return t;
  }();
  return table;
}

const std::array<float, 256>& e8m0_values() {
  static const auto table = [] {
    std::array<float, 256> t{};
    for (int c = 0; c < 256; ++c) t[size_t(c)] = e8m0_to_f32(uint8_t(c));
    return t;
  }();
  return table;
}

double weight_value(const Weight& w, int64_t r, int64_t c) {
  double v = 0.0;
  decode_weight_row(w, r, c, 1, &v);
  return v;
}

}  // namespace plumb::kernels
