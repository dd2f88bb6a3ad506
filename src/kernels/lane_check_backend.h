// An observed backend (observed_backend.h) that checks the forward's lane hints (Backend::begin_lane) the way a CUDA
// graph uses them: each op follows the one before on its lane, a side lane's first op after begin_lane follows lane
// 0's last op, and lane 0's first op after join_lanes follows every side lane's last op (lane_order.h). Two ops that may therefore run at once must
// not touch the same bytes of a tensor unless both only read them. Every op runs on the inner backend unchanged;
// each hazard found is described in the report. A download, upload or synchronize ends everything before it, as the
// CUDA backend's flush does. (Scratch the backend keeps for itself is its own affair: the CUDA backend keeps a set a
// lane.)
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.h"

namespace plumb::kernels {

struct LaneReport {
  std::array<int64_t, Backend::kLanes> ops{};  // ops checked, by lane
  std::vector<std::string> hazards;            // "attention (lane 0) writes bytes indexer_topk (lane 2) reads ..."
};

// Wraps `inner`; the report must outlive the returned backend.
std::unique_ptr<Backend> make_lane_check_backend(std::unique_ptr<Backend> inner, LaneReport* report);

}  // namespace plumb::kernels
