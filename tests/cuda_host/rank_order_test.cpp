// Two facts the CUDA attention-side kernels rest on, checked on any machine with the code the GPU compiles:
// - rank_key (the indexer's selection by counting) orders (value, index) pairs as plumb's top-k order says: value
//   descending, +0 and -0 equal, NaN after every number, ties by ascending index; ranks_before (the router) too.
//   The reference comparator below is written from that sentence, in double.
// - an absent key enters attention_pv's sums as fma(-0, +0, acc), which returns acc bit for bit (so skipping it
//   and adding it agree); +0 would not (it turns an acc of -0 into +0).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/cuda/rank_order.h"

namespace plumb::cuda {
namespace {

bool spec_before(float a, int32_t ia, float b, int32_t ib) {
  const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
  if (a_nan && b_nan) return ia < ib;
  if (a_nan || b_nan) return b_nan;
  if (double(a) != double(b)) return double(a) > double(b);
  return ia < ib;
}

uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

float from_bits(uint32_t u) {
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

std::vector<float> edge_values() {
  const float inf = std::numeric_limits<float>::infinity(), tiny = std::numeric_limits<float>::denorm_min();
  std::vector<float> v = {0.0f, -0.0f, inf, -inf, tiny, -tiny, std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 1.0f, -1.0f, 1.5f,
                          -1.5f, from_bits(0x7fc00000u), from_bits(0xffc00001u), from_bits(0x7f800001u)};
  std::mt19937 g(5);
  std::normal_distribution<float> n(0.0f, 4.0f);
  for (int i = 0; i < 40; ++i) v.push_back(n(g));
  for (int i = 0; i < 8; ++i) v.push_back(v[size_t(g() % v.size())]);  // exact ties
  return v;
}

TEST(RankOrder, RankKeyAndRanksBeforeFollowTheTopKOrder) {
  const std::vector<float> values = edge_values();
  std::mt19937 g(9);
  std::vector<int32_t> index(values.size());
  for (auto& i : index) i = int32_t(g() % 50);  // repeats too: equal indices meet other values, and equal ranks
  int checked = 0;
  for (size_t a = 0; a < values.size(); ++a)
    for (size_t b = 0; b < values.size(); ++b) {
      if (a == b) continue;
      const bool want = spec_before(values[a], index[a], values[b], index[b]);
      EXPECT_EQ(rank_key(values[a], index[a]) < rank_key(values[b], index[b]), want)
          << values[a] << " #" << index[a] << " vs " << values[b] << " #" << index[b];
      EXPECT_EQ(ranks_before(values[a], index[a], values[b], index[b]), want)
          << values[a] << " #" << index[a] << " vs " << values[b] << " #" << index[b];
      ++checked;
    }
  EXPECT_GT(checked, 3000);
  // Equal ranks whichever comes first: -0 and +0, NaNs of any sign and payload.
  const float nan_a = from_bits(0x7fc00000u), nan_b = from_bits(0xffc00001u);
  for (auto [x, y] : {std::pair{-0.0f, 0.0f}, std::pair{0.0f, -0.0f}, std::pair{nan_a, nan_b}, std::pair{nan_b, nan_a}}) {
    EXPECT_LT(rank_key(x, 1), rank_key(y, 2)) << x << " " << y;
    EXPECT_TRUE(ranks_before(x, 1, y, 2)) << x << " " << y;
  }
}

TEST(RankOrder, AbsentKeyEntersTheSumsUnchanged) {
  for (float acc : edge_values()) {
    const float with_minus_zero = std::fmaf(-0.0f, 0.0f, acc);
    if (std::isnan(acc)) {
      EXPECT_TRUE(std::isnan(with_minus_zero));
    } else {
      EXPECT_EQ(bits(with_minus_zero), bits(acc)) << acc;
    }
  }
  EXPECT_NE(bits(std::fmaf(0.0f, 0.0f, -0.0f)), bits(-0.0f));  // why -0: +0 would turn an acc of -0 into +0
}

}  // namespace
}  // namespace plumb::cuda
