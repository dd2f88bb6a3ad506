// The experts pass kernel's first-turn numbering (experts_units.h), checked on any machine by enumerating every
// warp of a grid: each unit goes to exactly one warp (a K-split pair's two warps share theirs), and with the spread
// on the lowest units, a launch's active ones, fall evenly on the blocks, which block by block they do not.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/cuda/experts_units.h"

namespace plumb::cuda {
namespace {

constexpr int kWarps = 4;  // the kernel's warps a block

// unit_of[block][warp] for a grid of `blocks`.
std::vector<std::vector<int>> first_turn(int blocks, int per_unit, bool spread, bool from_end = false) {
  std::vector<std::vector<int>> unit_of(static_cast<size_t>(blocks), std::vector<int>(kWarps));
  for (int b = 0; b < blocks; ++b)
    for (int w = 0; w < kWarps; ++w)
      unit_of[size_t(b)][size_t(w)] = first_turn_unit(b, w, blocks, kWarps, per_unit, spread, from_end);
  return unit_of;
}

TEST(ExpertsUnits, ItemsPerUnit) {
  EXPECT_EQ(items_per_unit(1), 1);
  EXPECT_EQ(items_per_unit(2), 2);  // a K-split pair
  EXPECT_EQ(items_per_unit(4), 1);
}

TEST(ExpertsUnits, EveryUnitOfTheFirstTurnGoesToOneWarpOrOnePair) {
  for (int deal : {0, 1, 2}) {  // block by block, spread, spread from the end
    const bool spread = deal > 0, from_end = deal == 2;
    for (int per_unit : {1, 2}) {
      for (int blocks : {1, 2, 3, 7, 132, 384, 528}) {
        const auto unit_of = first_turn(blocks, per_unit, spread, from_end);
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
std::pair<int, int> spread_of_lowest(int blocks, int per_unit, bool spread, int n, bool from_end = false) {
  const auto unit_of = first_turn(blocks, per_unit, spread, from_end);
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
      for (bool from_end : {false, true}) {
        const auto [least, most] = spread_of_lowest(528, per_unit, true, n, from_end);
        EXPECT_EQ(least, n / 528) << "n " << n << " per_unit " << per_unit << " from_end " << from_end;
        EXPECT_EQ(most, (n + 527) / 528) << "n " << n << " per_unit " << per_unit << " from_end " << from_end;
      }
    }
  }
}

TEST(ExpertsUnits, BlockByBlockPacksTheLowestUnitsIntoTheFirstBlocks) {
  // What the spread is for: half of a block-by-block grid's units fill its first half, leaving the rest empty.
  const auto [least, most] = spread_of_lowest(528, 1, false, 528 * kWarps / 2);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(most, kWarps);
}

// The block-to-multiprocessor maps of five launches of a 528-block grid on an H200 (4 blocks a multiprocessor, all
// resident), recorded in session 29 call 4 (docs/receipts/data/2026-12-02-session29/call4/block_map.txt): a line
// "map S0 S1 ..." a launch, block b's multiprocessor the (b+1)-th number.
std::vector<std::vector<int>> recorded_maps(int blocks) {
  std::ifstream in(std::string(PLUMB_SOURCE_DIR) + "/docs/receipts/data/2026-12-02-session29/call4/block_map.txt");
  std::vector<std::vector<int>> maps;
  bool in_grid = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("grid ", 0) == 0) in_grid = line.rfind("grid " + std::to_string(blocks) + " ", 0) == 0;
    if (!in_grid || line.rfind("map ", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    std::vector<int> sm_of;
    for (int sm; fields >> sm;) sm_of.push_back(sm);
    maps.push_back(sm_of);
  }
  return maps;
}

// The busy warps on the busiest multiprocessor when `units` units of per_unit warps go out in a first turn.
int busiest_multiprocessor(const std::vector<int>& sm_of, int units, int per_unit, bool from_end) {
  const int blocks = int(sm_of.size());
  const auto unit_of = first_turn(blocks, per_unit, true, from_end);
  std::vector<int> busy(size_t(*std::max_element(sm_of.begin(), sm_of.end()) + 1), 0);
  for (int b = 0; b < blocks; ++b)
    for (int w = 0; w < kWarps; ++w) busy[size_t(sm_of[size_t(b)])] += unit_of[size_t(b)][size_t(w)] < units ? 1 : 0;
  return *std::max_element(busy.begin(), busy.end());
}

TEST(ExpertsUnits, DealtFromTheEndTheBusyWarpsFallEvenlyOnTheRecordedPlacement) {
  const auto maps = recorded_maps(528);
  if (maps.empty())
    GTEST_SKIP() << "the recorded block maps are absent (docs/receipts/data/2026-12-02-session29/call4)";
  ASSERT_EQ(maps.size(), 5u);
  for (const auto& sm_of : maps) {
    ASSERT_EQ(sm_of.size(), 528u);
    // 2 rows on the same 6 experts: gate/up's 768 units of two warps are 1536 busy warps, at least
    // ceil(1536 / 132) = 12 on some multiprocessor; down's 1536 units of one warp the same. 7 experts: 1792, 14.
    EXPECT_EQ(busiest_multiprocessor(sm_of, 768, 2, true), 12);
    EXPECT_EQ(busiest_multiprocessor(sm_of, 1536, 1, true), 12);
    EXPECT_EQ(busiest_multiprocessor(sm_of, 896, 2, true), 14);
    EXPECT_EQ(busiest_multiprocessor(sm_of, 1792, 1, true), 14);
  }
  // Dealt from block 0, the first 132 blocks double up: launch 0 put 16 busy gate/up warps on some multiprocessor
  // (session 29 call 2's ncu: the busiest multiprocessor 106 K instructions against 78 K on average).
  EXPECT_EQ(busiest_multiprocessor(maps[0], 768, 2, false), 16);
}

TEST(ExpertsUnits, NumberedWarpsAreAPermutationWithPairsInOneBlock) {
  for (bool apart : {false, true}) {
    std::vector<int> seen(kWarps, 0);
    for (int w = 0; w < kWarps; ++w) ++seen[size_t(numbered_warp(w, apart))];
    for (int n = 0; n < kWarps; ++n) EXPECT_EQ(seen[size_t(n)], 1) << "number " << n << " apart " << apart;
  }
  // Apart, numbers 2i and 2i + 1 (a K-split pair) are hardware warps i and i + 2.
  EXPECT_EQ(numbered_warp(0, true), 0);
  EXPECT_EQ(numbered_warp(2, true), 1);
  EXPECT_EQ(numbered_warp(1, true), 2);
  EXPECT_EQ(numbered_warp(3, true), 3);
}

// The busy warps on the busiest scheduler when `units` K-split pairs go out in a first turn dealt from the end, under
// session 30 call 2's probe: a block's warps in slots 4r .. 4r + 3, r its place on the multiprocessor (blocks placed
// in index order), and warp w on scheduler (w + r) % 4 (warp 0 of each of four blocks ran ALU work on four
// schedulers: 367 us; warp r of the block in place r on two: 691 us).
int busiest_scheduler(const std::vector<int>& sm_of, int units, bool apart) {
  const int blocks = int(sm_of.size());
  const auto unit_of = first_turn(blocks, 2, true, true);  // by numbered warp
  std::vector<int> place(static_cast<size_t>(blocks), 0);
  std::vector<int> placed(static_cast<size_t>(*std::max_element(sm_of.begin(), sm_of.end()) + 1), 0);
  for (int b = 0; b < blocks; ++b) place[size_t(b)] = placed[size_t(sm_of[size_t(b)])]++;
  std::vector<int> busy(placed.size() * 4, 0);
  for (int b = 0; b < blocks; ++b)
    for (int w = 0; w < kWarps; ++w) {
      const int unit = unit_of[size_t(b)][size_t(numbered_warp(w, apart))];
      busy[size_t(sm_of[size_t(b)] * 4 + (w + place[size_t(b)]) % 4)] += unit < units ? 1 : 0;
    }
  return *std::max_element(busy.begin(), busy.end());
}

TEST(ExpertsUnits, PairsApartSpreadTheBusyWarpsOverTheSchedulers) {
  const auto maps = recorded_maps(528);
  if (maps.empty())
    GTEST_SKIP() << "the recorded block maps are absent (docs/receipts/data/2026-12-02-session29/call4)";
  for (const auto& sm_of : maps) {
    // 2 rows on the same 6: 768 pairs, 1536 busy warps over 132 x 4 schedulers, at least ceil(1536 / 528) = 3 on one.
    EXPECT_EQ(busiest_scheduler(sm_of, 768, true), 3);
    EXPECT_EQ(busiest_scheduler(sm_of, 768, false), 4);  // call 2's ncu: max 26.8 K against 19.7 K on average
  }
}

}  // namespace
}  // namespace plumb::cuda
