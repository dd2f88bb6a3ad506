// The launch tape behind the CUDA graph cache (kernels/cuda/launch_tape.h), checked on any machine: a tape keeps a
// copy of each launch's argument bytes (so the caller's values may change after record), two tapes of the same
// kernels, shapes and argument sizes match whatever the argument values, any change of kernel, grid, block, shared
// bytes or argument size makes them differ, same_args / copy_args see and carry a one-byte change, and lanes give
// each launch the launches it must follow (worked out by hand for the attention sublayer's pattern).
#include <cstdint>
#include <cstring>
#include <iterator>

#include <gtest/gtest.h>

#include "kernels/cuda/launch_tape.h"

namespace plumb::cuda {
namespace {

void kernel_a() {}
void kernel_b() {}

struct Args3 {  // a pointer, a count and a 24-byte struct, as launchers pass them
  const void* p;
  int64_t n;
  struct {
    double x, y;
    int32_t z;
  } s;
};

void record(LaunchTape& t, const void* func, Args3 a, Dim3 grid = {4, 1, 1}, Dim3 block = {256, 1, 1},
            size_t shared = 0) {
  void* args[] = {&a.p, &a.n, &a.s};
  const uint32_t sizes[] = {sizeof(a.p), sizeof(a.n), sizeof(a.s)};
  t.record(KernelCall{func, grid, block, shared, args, sizes, 3, "k"});
}

Args3 args(int64_t n) {
  Args3 a{};
  std::memset(&a, 0, sizeof(a));
  a.p = reinterpret_cast<const void*>(&kernel_a);
  a.n = n;
  a.s.x = 1.5;
  a.s.y = -2;
  a.s.z = 7;
  return a;
}

TEST(LaunchTape, KeepsItsOwnCopyOfEachArgument) {
  LaunchTape t;
  Args3 a = args(42);
  record(t, reinterpret_cast<const void*>(&kernel_a), a);
  a.n = 99;  // the caller's value changes after the launch was recorded
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.entry(0).arg_count, 3u);
  void* const* p = t.args(0);
  int64_t n = 0;
  std::memcpy(&n, p[1], sizeof(n));
  EXPECT_EQ(n, 42);
  double y = 0;
  std::memcpy(&y, static_cast<const char*>(p[2]) + 8, sizeof(y));
  EXPECT_EQ(y, -2.0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(reinterpret_cast<uintptr_t>(p[i]) % 16, 0u) << i;
}

TEST(LaunchTape, SameShapeIgnoresArgumentValuesAndSeesEveryShapeChange) {
  const void* fa = reinterpret_cast<const void*>(&kernel_a);
  const void* fb = reinterpret_cast<const void*>(&kernel_b);
  LaunchTape base, values;
  record(base, fa, args(1));
  record(base, fb, args(2));
  record(values, fa, args(10));
  record(values, fb, args(20));
  EXPECT_TRUE(base.same_shape(values));
  EXPECT_EQ(base.shape_hash(), values.shape_hash());

  auto differs = [&](auto change) {
    LaunchTape t;
    record(t, fa, args(1));
    change(t);
    return !base.same_shape(t);
  };
  EXPECT_TRUE(differs([&](LaunchTape& t) { record(t, fa, args(2)); }));                       // another kernel
  EXPECT_TRUE(differs([&](LaunchTape& t) { record(t, fb, args(2), {5, 1, 1}); }));            // grid
  EXPECT_TRUE(differs([&](LaunchTape& t) { record(t, fb, args(2), {4, 1, 1}, {128, 1, 1}); }));  // block
  EXPECT_TRUE(differs([&](LaunchTape& t) { record(t, fb, args(2), {4, 1, 1}, {256, 1, 1}, 64); }));  // shared
  EXPECT_TRUE(differs([&](LaunchTape&) {}));                                                   // one launch fewer
  EXPECT_TRUE(differs([&](LaunchTape& t) {                                                     // argument sizes
    int64_t n = 2;
    void* a[] = {&n};
    const uint32_t s[] = {sizeof(n)};
    t.record(KernelCall{fb, {4, 1, 1}, {256, 1, 1}, 0, a, s, 1, "k"});
  }));
}

TEST(LaunchTape, SameArgsSeesOneByteAndCopyArgsCarriesIt) {
  const void* fa = reinterpret_cast<const void*>(&kernel_a);
  LaunchTape a, b;
  record(a, fa, args(1));
  record(a, fa, args(2));
  Args3 changed = args(2);
  changed.s.z = 8;  // one byte of the last argument of the second launch
  record(b, fa, args(1));
  record(b, fa, changed);
  EXPECT_TRUE(a.same_args(0, b));
  EXPECT_FALSE(a.same_args(1, b));
  a.copy_args(1, b);
  EXPECT_TRUE(a.same_args(1, b));
  int32_t z = 0;
  std::memcpy(&z, static_cast<const char*>(a.args(1)[2]) + 16, sizeof(z));
  EXPECT_EQ(z, 8);
}

TEST(LaunchTape, ClearEmptiesIt) {
  LaunchTape t;
  record(t, reinterpret_cast<const void*>(&kernel_a), args(1));
  t.clear();
  EXPECT_TRUE(t.empty());
  LaunchTape u;
  EXPECT_TRUE(t.same_shape(u));
}

// Each entry's launches to follow, as (after, first of also, second of also); -1 for none.
struct Follows {
  int32_t after, also0, also1;
  bool operator==(const Follows&) const = default;
};
Follows follows(const LaunchTape& t, size_t i) {
  const LaunchTape::Entry& e = t.entry(i);
  for (size_t k = 2; k < e.also.size(); ++k) EXPECT_EQ(e.also[k], -1) << i;
  return {e.after, e.also[0], e.also[1]};
}

TEST(LaunchTape, WithoutLanesEachLaunchFollowsTheOneBefore) {
  LaunchTape t;
  for (int i = 0; i < 4; ++i) record(t, reinterpret_cast<const void*>(&kernel_a), args(i));
  EXPECT_EQ(follows(t, 0), (Follows{-1, -1, -1}));
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(follows(t, i), (Follows{int32_t(i) - 1, -1, -1})) << i;
}

// The attention sublayer's pattern (model/dsv4/attention_layer.cpp), worked out by hand: two lane-0 launches, lane
// 1 forks after them, lane 0 goes on, lane 2 forks after lane 0's fifth launch, lane 0 goes on, then the join.
TEST(LaunchTape, LanesForkFromLaneZeroAndJoinIntoItsNextLaunch) {
  const void* fa = reinterpret_cast<const void*>(&kernel_a);
  LaunchTape t;
  record(t, fa, args(0));  // 0: lane 0
  record(t, fa, args(1));  // 1: lane 0 (the fork point of lane 1)
  t.begin_lane(1);
  EXPECT_EQ(t.lane(), 1);
  record(t, fa, args(2));  // 2: lane 1, first: follows 1
  record(t, fa, args(3));  // 3: lane 1
  t.end_lane();
  record(t, fa, args(4));  // 4: lane 0, after 1 (not after lane 1's 3)
  record(t, fa, args(5));  // 5: lane 0 (the fork point of lane 2)
  t.begin_lane(2);
  record(t, fa, args(6));  // 6: lane 2, first: follows 5
  record(t, fa, args(7));  // 7: lane 2
  t.end_lane();
  record(t, fa, args(8));  // 8: lane 0, after 5
  t.join_lanes();
  record(t, fa, args(9));   // 9: lane 0 after 8, and after lanes 1 and 2's last (3, 7)
  record(t, fa, args(10));  // 10: lane 0 after 9 only
  const Follows want[] = {{-1, -1, -1}, {0, -1, -1}, {-1, 1, -1}, {2, -1, -1}, {1, -1, -1}, {4, -1, -1},
                          {-1, 5, -1},  {6, -1, -1}, {5, -1, -1},  {8, 3, 7},   {9, -1, -1}};
  ASSERT_EQ(t.size(), std::size(want));
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(follows(t, i), want[i]) << i;

  // The same kernels and shapes as a chain are another graph: same_shape and the hash tell them apart.
  LaunchTape chain;
  for (int i = 0; i <= 10; ++i) record(chain, fa, args(i));
  EXPECT_FALSE(t.same_shape(chain));
  EXPECT_NE(t.shape_hash(), chain.shape_hash());
}

// Every side lane at once, as the CSA attention sublayer uses them: lane 0's launch after the join follows each
// lane's last launch, in lane order, and a lane with no launch since the last join adds nothing.
TEST(LaunchTape, AJoinFollowsEverySideLaneWithLaunches) {
  const void* fa = reinterpret_cast<const void*>(&kernel_a);
  LaunchTape t;
  record(t, fa, args(0));  // 0: lane 0
  for (int lane : {4, 1, 3}) {  // 1, 2, 3: one launch each on lanes 4, 1 and 3, forked after 0
    t.begin_lane(lane);
    record(t, fa, args(lane));
    t.end_lane();
  }
  t.join_lanes();
  record(t, fa, args(5));  // 4: follows 0 on lane 0, then lanes 1, 3 and 4's launches (2, 3, 1); lane 2 had none
  LaunchTape::PerLane want = LaunchTape::kNone;
  want[0] = 2, want[1] = 3, want[2] = 1;
  EXPECT_EQ(t.entry(4).after, 0);
  EXPECT_EQ(t.entry(4).also, want);
  for (size_t i = 1; i <= 3; ++i) EXPECT_EQ(follows(t, i), (Follows{-1, 0, -1})) << i;
  t.join_lanes();  // nothing on a side lane since
  record(t, fa, args(6));
  EXPECT_EQ(follows(t, 5), (Follows{4, -1, -1}));
}

TEST(LaunchTape, AFlushInsideALaneLeavesNothingToFollowFromBeforeIt) {
  const void* fa = reinterpret_cast<const void*>(&kernel_a);
  LaunchTape t;
  record(t, fa, args(0));
  t.begin_lane(1);
  record(t, fa, args(1));
  t.clear();  // the launches so far run (and finish) before any recorded from here
  record(t, fa, args(2));  // 0: still lane 1, nothing in this tape before it
  t.end_lane();
  t.join_lanes();
  record(t, fa, args(3));  // 1: lane 0, follows lane 1's launch of this tape
  EXPECT_EQ(follows(t, 0), (Follows{-1, -1, -1}));
  EXPECT_EQ(follows(t, 1), (Follows{-1, 0, -1}));
}

}  // namespace
}  // namespace plumb::cuda
