// Number formats against hand-computed values (bit patterns worked out from the format definitions).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "base/number_formats.h"

namespace plumb {
namespace {

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_bf16(1.00390625f), 0x3f80);    // 1 + 2^-8: halfway, keeps even 0x3f80
  EXPECT_EQ(f32_to_bf16(1.01171875f), 0x3f82);    // 1 + 3*2^-8: halfway, rounds up to even 0x3f82
  EXPECT_EQ(f32_to_bf16(std::nextafter(1.00390625f, 2.0f)), 0x3f81);  // just past halfway rounds up
  EXPECT_EQ(f32_to_bf16(3.4028235e38f), 0x7f80);  // float max rounds to +inf
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(f32_to_bf16(-0.0f), 0x8000);
}

TEST(Bf16, NanStaysNan) {
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  // A NaN whose payload sits only in the low 16 bits must not become infinity.
  float low_payload_nan;
  const uint32_t b = 0x7f800001u;
  std::memcpy(&low_payload_nan, &b, 4);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(low_payload_nan))));
}

TEST(Bf16, DecodeIsExact) {
  EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(bf16_to_f32(0x4049), 3.140625f);
  EXPECT_EQ(bits(bf16_to_f32(0x0001)), 0x00010000u);
}

// e4m3fn by its definition: bias 7, 3 mantissa bits, exponent 0 subnormal, S.1111.111 NaN.
double e4m3_by_definition(unsigned code) {
  const int s = code >> 7, e = (code >> 3) & 15, m = code & 7;
  if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
  const double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
  return s ? -v : v;
}

TEST(E4m3, DecodesAll256Codes) {
  for (unsigned c = 0; c < 256; ++c) {
    const double want = e4m3_by_definition(c);
    const float got = e4m3_to_f32(uint8_t(c));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << c;
    } else {
      EXPECT_EQ(double(got), want) << "code " << c;
    }
  }
  EXPECT_EQ(e4m3_to_f32(0x7e), 448.0f);
  EXPECT_EQ(e4m3_to_f32(0xfe), -448.0f);
  EXPECT_EQ(e4m3_to_f32(0x01), 0.001953125f);  // 2^-9, smallest subnormal
  EXPECT_EQ(e4m3_to_f32(0x08), 0.015625f);     // 2^-6, smallest normal
  EXPECT_EQ(e4m3_to_f32(0x38), 1.0f);
  EXPECT_EQ(e4m3_to_f32(0x40), 2.0f);
}

TEST(E4m3, EncodeRoundsAndSaturates) {
  for (unsigned c = 0; c < 256; ++c) {
    if ((c & 0x7f) == 0x7f) continue;
    EXPECT_EQ(f32_to_e4m3(e4m3_to_f32(uint8_t(c))), c) << "round trip of code " << c;
  }
  EXPECT_EQ(f32_to_e4m3(449.0f), 0x7e);
  EXPECT_EQ(f32_to_e4m3(464.0f), 0x7e);
  EXPECT_EQ(f32_to_e4m3(1e6f), 0x7e);
  EXPECT_EQ(f32_to_e4m3(-1e6f), 0xfe);
  EXPECT_EQ(f32_to_e4m3(std::numeric_limits<float>::infinity()), 0x7e);
  EXPECT_EQ(f32_to_e4m3(0.0009765625f), 0x00);  // 2^-10: halfway between 0 and 2^-9, even is 0
  EXPECT_EQ(f32_to_e4m3(0.0029296875f), 0x02);  // 3*2^-10: halfway between codes 1 and 2, even is 2
  EXPECT_EQ(f32_to_e4m3(1.0625f), 0x38);        // halfway between 1.0 (0x38) and 1.125 (0x39)
  EXPECT_EQ(f32_to_e4m3(1.1875f), 0x3a);        // halfway between 1.125 (0x39) and 1.25 (0x3a)
  EXPECT_EQ(f32_to_e4m3(1.07f), 0x39);          // nearer 1.125
  EXPECT_EQ(f32_to_e4m3(-0.0f), 0x80);
  EXPECT_EQ(f32_to_e4m3(std::numeric_limits<float>::quiet_NaN()), 0x7f);
  EXPECT_EQ(f32_to_e4m3(-std::numeric_limits<float>::quiet_NaN()), 0xff);
}

TEST(E2m1, DecodesAll16Codes) {
  const float want[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
  for (unsigned c = 0; c < 16; ++c) {
    EXPECT_EQ(e2m1_to_f32(uint8_t(c)), want[c]) << c;
    EXPECT_EQ(bits(e2m1_to_f32(uint8_t(c))) >> 31, c >> 3) << "sign of code " << c;
  }
}

TEST(E2m1, EncodeRoundsToNearestEvenAndSaturates) {
  for (unsigned c = 0; c < 16; ++c) EXPECT_EQ(f32_to_e2m1(e2m1_to_f32(uint8_t(c))), c);
  EXPECT_EQ(f32_to_e2m1(0.25f), 0x0);  // halfway 0 / 0.5 -> 0
  EXPECT_EQ(f32_to_e2m1(0.75f), 0x2);  // halfway 0.5 / 1 -> 1
  EXPECT_EQ(f32_to_e2m1(1.25f), 0x2);  // halfway 1 / 1.5 -> 1
  EXPECT_EQ(f32_to_e2m1(1.75f), 0x4);  // halfway 1.5 / 2 -> 2
  EXPECT_EQ(f32_to_e2m1(2.5f), 0x4);   // halfway 2 / 3 -> 2
  EXPECT_EQ(f32_to_e2m1(3.5f), 0x6);   // halfway 3 / 4 -> 4
  EXPECT_EQ(f32_to_e2m1(5.0f), 0x6);   // halfway 4 / 6 -> 4
  EXPECT_EQ(f32_to_e2m1(5.01f), 0x7);
  EXPECT_EQ(f32_to_e2m1(7.0f), 0x7);
  EXPECT_EQ(f32_to_e2m1(1e9f), 0x7);
  EXPECT_EQ(f32_to_e2m1(-5.0f), 0xe);
  EXPECT_EQ(f32_to_e2m1(-100.0f), 0xf);
}

TEST(E8m0, DecodesPowersOfTwo) {
  EXPECT_EQ(e8m0_to_f32(127), 1.0f);
  EXPECT_EQ(e8m0_to_f32(128), 2.0f);
  EXPECT_EQ(e8m0_to_f32(120), 0.0078125f);
  EXPECT_EQ(e8m0_to_f64(0), std::ldexp(1.0, -127));
  EXPECT_EQ(e8m0_to_f64(254), std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(e8m0_to_f32(255)));
  EXPECT_EQ(e8m0_from_pow2_exponent(-3), 124);
}

TEST(Pow2Scale, MatchesCeilLog2OfAmaxOverMax) {
  EXPECT_EQ(pow2_scale_exponent(448.0f, 448.0f), 0);
  EXPECT_EQ(pow2_scale_exponent(449.0f, 448.0f), 1);
  EXPECT_EQ(pow2_scale_exponent(224.0f, 448.0f), -1);
  EXPECT_EQ(pow2_scale_exponent(225.0f, 448.0f), 0);
  EXPECT_EQ(pow2_scale_exponent(0.0f, 448.0f), -22);  // 1e-4 / 448 = 2.23e-7, log2 = -13.29 - 8.81 = -22.09
  EXPECT_EQ(pow2_scale_exponent(6.0f, 6.0f), 0);
  EXPECT_EQ(pow2_scale_exponent(12.5f, 6.0f), 2);     // 2.08 -> ceil(log2) = 2
}

}  // namespace
}  // namespace plumb
