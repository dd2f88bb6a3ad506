// The longest chain through a launch tape's orderings (kernels/cuda/critical_path.h), worked out by hand: a chain
// sums every launch; with a side lane the longer of the two branches between the fork and the join is the chain, and
// a launch beside it is off it; a tie stays on the launch's own lane.
#include <cstdint>

#include <gtest/gtest.h>

#include "base/error.h"
#include "kernels/cuda/critical_path.h"

namespace plumb::cuda {
namespace {

void kernel_a() {}

void record(LaunchTape& t, int64_t n) {
  void* args[] = {&n};
  const uint32_t sizes[] = {sizeof(n)};
  t.record(KernelCall{reinterpret_cast<const void*>(&kernel_a), {1, 1, 1}, {32, 1, 1}, 0, args, sizes, 1, "k"});
}

// 0, 1 on lane 0; lane 1 forks after 1 with 2, 3; lane 0 goes on with 4; after the join 5 follows 4 and 3.
LaunchTape fork_and_join() {
  LaunchTape t;
  record(t, 0);
  record(t, 1);
  t.begin_lane(1);
  record(t, 2);
  record(t, 3);
  t.end_lane();
  record(t, 4);
  t.join_lanes();
  record(t, 5);
  return t;
}

std::vector<bool> path_of(std::initializer_list<int> on, size_t n) {
  std::vector<bool> v(n, false);
  for (int i : on) v[size_t(i)] = true;
  return v;
}

TEST(CriticalPath, AChainIsEveryLaunch) {
  LaunchTape t;
  for (int i = 0; i < 4; ++i) record(t, i);
  const CriticalPath p = critical_path(t, {1.0, 2.0, 3.0, 4.0});
  EXPECT_EQ(p.length, 10.0);
  EXPECT_EQ(p.on_path, path_of({0, 1, 2, 3}, 4));
}

TEST(CriticalPath, TheLongerBranchBetweenForkAndJoinIsTheChain) {
  const LaunchTape t = fork_and_join();
  // Lane 1 long: 1 + 2 + (10 + 1) + 1 = 15; lane 0's 4 (3) runs beside it.
  CriticalPath p = critical_path(t, {1.0, 2.0, 10.0, 1.0, 3.0, 1.0});
  EXPECT_EQ(p.length, 15.0);
  EXPECT_EQ(p.on_path, path_of({0, 1, 2, 3, 5}, 6));
  // Lane 1 short: 1 + 2 + 3 + 1 = 7 through lane 0's 4.
  p = critical_path(t, {1.0, 2.0, 1.0, 1.0, 3.0, 1.0});
  EXPECT_EQ(p.length, 7.0);
  EXPECT_EQ(p.on_path, path_of({0, 1, 4, 5}, 6));
}

TEST(CriticalPath, ATieStaysOnTheLaunchsOwnLane) {
  const LaunchTape t = fork_and_join();
  const CriticalPath p = critical_path(t, {1.0, 2.0, 2.0, 1.0, 3.0, 1.0});  // both branches end at 6
  EXPECT_EQ(p.length, 7.0);
  EXPECT_EQ(p.on_path, path_of({0, 1, 4, 5}, 6));
}

TEST(CriticalPath, OneTimeALaunchOrItIsAnError) {
  const LaunchTape t = fork_and_join();
  EXPECT_THROW(critical_path(t, {1.0, 2.0}), Error);
  EXPECT_EQ(critical_path(LaunchTape{}, {}).length, 0.0);
}

}  // namespace
}  // namespace plumb::cuda
