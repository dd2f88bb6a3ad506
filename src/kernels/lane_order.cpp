#include "kernels/lane_order.h"

#include "base/error.h"

namespace plumb::kernels {

void LaneOrder::begin_lane(int lane) {
  PLUMB_CHECK(lane >= 1 && lane < kLanes && lane_ == 0);
  lane_ = lane;
  fork_[size_t(lane)] = last_[0];
  forked_[size_t(lane)] = true;
}

void LaneOrder::join_lanes() {
  PLUMB_CHECK(lane_ == 0);
  joining_ |= unjoined_;
  unjoined_ = 0;
}

Follows LaneOrder::next(int32_t index) {
  const size_t lane = size_t(lane_);
  Follows f;
  f.after = last_[lane];
  size_t extra = 0;
  if (lane != 0 && forked_[lane]) {
    if (fork_[lane] >= 0) f.also[extra++] = fork_[lane];
    forked_[lane] = false;
  }
  if (lane == 0) {
    for (size_t l = 1; l < size_t(kLanes); ++l)
      if (joining_ & (1u << l)) f.also[extra++] = last_[l];
    joining_ = 0;
  } else {
    unjoined_ |= 1u << lane;
  }
  last_[lane] = index;
  return f;
}

void LaneOrder::clear() {
  last_ = fork_ = no_ops();
  unjoined_ = joining_ = 0;
}

}  // namespace plumb::kernels
