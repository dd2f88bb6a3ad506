// The experts pass kernel's first-turn numbering (experts_units.h), checked on any machine by enumerating every
// warp of a grid: each unit goes to exactly one warp (a K-split pair's two warps share theirs), and with the spread
// on the lowest units, a launch's active ones, fall evenly on the blocks, which block by block they do not.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/cuda/experts_units.h"

namespace plumb::cuda {
namespace {

constexpr int kWarps = 4;  // the kernel's warps a block

// unit_of[block][warp] for a grid of `blocks`.
std::vector<std::vector<int>> first_turn(int blocks, int per_unit, bool spread) {
  std::vector<std::vector<int>> unit_of(static_cast<size_t>(blocks), std::vector<int>(kWarps));
  for (int b = 0; b < blocks; ++b)
    for (int w = 0; w < kWarps; ++w)
      unit_of[size_t(b)][size_t(w)] = first_turn_unit(b, w, blocks, kWarps, per_unit, spread);
  return unit_of;
}

TEST(ExpertsUnits, ItemsPerUnit) {
  EXPECT_EQ(items_per_unit(1), 1);
  EXPECT_EQ(items_per_unit(2), 2);  // a K-split pair
  EXPECT_EQ(items_per_unit(4), 1);
}

TEST(ExpertsUnits, EveryUnitOfTheFirstTurnGoesToOneWarpOrOnePair) {
  for (bool spread : {false, true}) {
    for (int per_unit : {1, 2}) {
      for (int blocks : {1, 2, 3, 7, 132, 384, 528}) {
        const auto unit_of = first_turn(blocks, per_unit, spread);
        const int units = blocks * kWarps / per_unit;
        std::vector<int> takers(size_t(units), 0);
        for (int b = 0; b < blocks; ++b) {
          for (int w = 0; w < kWarps; ++w) {
            const int u = unit_of[size_t(b)][size_t(w)];
            ASSERT_GE(u, 0);
            ASSERT_LT(u, units) << "blocks " << blocks << " per_unit " << per_unit << " spread " << spread;
            if (w % per_unit == 0) ++takers[size_t(u)];  // a pair counts once, by its split-0 warp
            if (per_unit == 2 && w % 2 == 1) {
              EXPECT_EQ(u, unit_of[size_t(b)][size_t(w - 1)]) << "a pair split up";
            }
          }
        }
        for (int u = 0; u < units; ++u)
          EXPECT_EQ(takers[size_t(u)], 1) << "unit " << u << " of " << units << ", blocks " << blocks << " per_unit "
                                          << per_unit << " spread " << spread;
      }
    }
  }
}

// The blocks holding the n lowest units: how many each holds, least and most.
std::pair<int, int> spread_of_lowest(int blocks, int per_unit, bool spread, int n) {
  const auto unit_of = first_turn(blocks, per_unit, spread);
  std::vector<int> held(size_t(blocks), 0);
  for (int b = 0; b < blocks; ++b)
    for (int w = 0; w < kWarps; w += per_unit) held[size_t(b)] += unit_of[size_t(b)][size_t(w)] < n ? 1 : 0;
  return {*std::min_element(held.begin(), held.end()), *std::max_element(held.begin(), held.end())};
}

TEST(ExpertsUnits, SpreadDealsTheLowestUnitsEvenlyOverTheBlocks) {
  // 2 rows on the same 6 experts in a grid capped at 528 blocks: gate/up's 768 units (K-split pairs), down's 1536.
  for (int per_unit : {1, 2}) {
    const int units = 528 * kWarps / per_unit;
    for (int n : {1, 100, 527, 528, 529, 768, 1000, 1536}) {
      if (n > units) continue;
      const auto [least, most] = spread_of_lowest(528, per_unit, true, n);
      EXPECT_EQ(least, n / 528) << "n " << n << " per_unit " << per_unit;
      EXPECT_EQ(most, (n + 527) / 528) << "n " << n << " per_unit " << per_unit;
    }
  }
}

TEST(ExpertsUnits, BlockByBlockPacksTheLowestUnitsIntoTheFirstBlocks) {
  // What the spread is for: half of a block-by-block grid's units fill its first half, leaving the rest empty.
  const auto [least, most] = spread_of_lowest(528, 1, false, 528 * kWarps / 2);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(most, kWarps);
}

}  // namespace
}  // namespace plumb::cuda
