// Which earlier ops a new op follows under the lane hints (Backend::begin_lane): the one before it on its own lane;
// for a side lane's first op after begin_lane, also lane 0's last op at that point (the fork); for lane 0's first op
// after join_lanes, also each side lane's last op. Without lanes every op follows the one before: a chain. One
// definition for the CUDA launch tape (its graph's edges) and the lane checker (its hazards), so that the checker
// orders ops exactly as the graph does. Plain C++.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace plumb::kernels {

constexpr int kLanes = 5;  // lane 0 and four side lanes
using PerLane = std::array<int32_t, kLanes>;

// Every index -1 (none).
constexpr PerLane no_ops() {
  PerLane v{};
  for (size_t i = 0; i < v.size(); ++i) v[i] = -1;
  return v;
}

struct Follows {
  int32_t after = -1;         // the op before on this lane (-1: none since the last clear)
  PerLane also = no_ops();    // further ops to follow (-1: none): a fork's lane-0 op, joined lanes' last ops
};

class LaneOrder {
 public:
  void begin_lane(int lane);  // 1 .. kLanes - 1, from lane 0
  void end_lane() { lane_ = 0; }
  void join_lanes();
  int lane() const { return lane_; }
  // What the op about to be numbered `index` (counting from the last clear) follows; it becomes its lane's last.
  Follows next(int32_t index);
  // Everything so far has finished (a flush): nothing before is followed any more. A lane still open stays open.
  void clear();

 private:
  int lane_ = 0;
  PerLane last_ = no_ops();   // each lane's last op
  PerLane fork_ = no_ops();   // lane 0's last op when the lane began
  std::array<bool, kLanes> forked_{};  // the lane began and has had no op since
  unsigned unjoined_ = 0, joining_ = 0;  // side lanes with ops since the last join; those lane 0's next op follows
};

}  // namespace plumb::kernels
