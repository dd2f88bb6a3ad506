// The CPU release arithmetic's fixed summation order: dot_f32 and sum_f32 (vector code) give exactly the bits of
// the order their comment states, written here as plain scalar code: partial sum l takes k = l mod 8 in turn, then
// ((0+1)+(2+3))+((4+5)+(6+7)). Every length 0..300 (full groups and every tail), values spread over many binades.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/release_math.h"

namespace plumb::test {
namespace {

float stated_order(const std::vector<float>& a, const std::vector<float>* b) {
  float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (size_t k = 0; k < a.size(); ++k) {
    const float term = b ? a[k] * (*b)[k] : a[k];
    part[k % 8] = part[k % 8] + term;
  }
  return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}

TEST(ReleaseMath, DotAndSumKeepTheStatedOrderToTheBit) {
  std::mt19937 g(17);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  for (int n = 0; n <= 300; ++n) {
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      a[size_t(i)] = std::ldexp(mantissa(g), exponent(g));
      b[size_t(i)] = std::ldexp(mantissa(g), exponent(g));
    }
    EXPECT_EQ(bits(kernels::cpu::dot_f32(a.data(), b.data(), n)), bits(stated_order(a, &b))) << "n " << n;
    EXPECT_EQ(bits(kernels::cpu::sum_f32(a.data(), n)), bits(stated_order(a, nullptr))) << "n " << n;
  }
}

// The order is not a formality: another one (one running sum) gives other bits on the same data.
TEST(ReleaseMath, ASequentialSumDiffersSomewhere) {
  std::mt19937 g(18);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  int differ = 0;
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> a(128);
    for (auto& v : a) v = std::ldexp(mantissa(g), exponent(g));
    float running = 0.0f;
    for (float v : a) running += v;
    differ += bits(running) != bits(kernels::cpu::sum_f32(a.data(), 128));
  }
  EXPECT_GT(differ, 0);
}

}  // namespace
}  // namespace plumb::test
