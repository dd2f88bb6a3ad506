// The launches a LaunchQueue recorded since its last flush, with copies of their argument bytes, the launches each
// must follow, and the comparisons a graph cache needs: the same kernels in the same shapes and order of launches
// (one graph serves both tapes) and, per launch, the same argument bytes (the graph's node needs no update). Plain
// C++: tested on any machine.
//
// Lanes: launches go to lane 0 unless begin_lane(k) sent them to side lane k until end_lane(); which earlier launches
// each one follows is kernels::LaneOrder's rule (kernels/lane_order.h). A graph built from the tape can then run the
// lanes side by side; launched one by one they run in recorded order, which respects every one of those orderings.
// Without lanes each launch follows the one before: a chain.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cuda/launch.h"
#include "kernels/lane_order.h"

namespace plumb::cuda {

class LaunchTape {
 public:
  using PerLane = kernels::PerLane;
  static constexpr PerLane kNone = kernels::no_ops();
  struct Entry {
    const void* func = nullptr;
    Dim3 grid, block;
    size_t shared_bytes = 0;
    uint32_t first_arg = 0, arg_count = 0;  // into the tape's argument lists
    const char* name = "";
    int32_t after = -1;    // the launch before on this lane (-1: none in this tape)
    PerLane also = kNone;  // further launches to follow (-1: none): a fork's lane-0 launch, joined lanes' last
  };

  void record(const KernelCall& call);
  void clear();  // launches and lane state (the flushed launches run before any later ones)

  void begin_lane(int lane) { order_.begin_lane(lane); }
  void end_lane() { order_.end_lane(); }
  void join_lanes() { order_.join_lanes(); }
  int lane() const { return order_.lane(); }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const Entry& entry(size_t i) const { return entries_[i]; }
  // Pointers to entry i's argument bytes, as cudaLaunchKernel and kernel nodes take them (valid until the next record).
  void* const* args(size_t i);

  // Same kernels, grids, blocks, shared bytes, argument sizes and launches to follow, in the same order.
  bool same_shape(const LaunchTape& other) const;
  // A hash of what same_shape compares.
  uint64_t shape_hash() const;
  // Entry i's argument bytes equal other's entry i's (both tapes of the same shape).
  bool same_args(size_t i, const LaunchTape& other) const;
  // Copies entry i's argument bytes from other (same shape).
  void copy_args(size_t i, const LaunchTape& other);

 private:
  std::vector<Entry> entries_;
  std::vector<uint32_t> arg_offsets_, arg_sizes_;  // per argument, into bytes_
  std::vector<std::byte> bytes_;
  std::vector<void*> pointers_;  // scratch for args()
  kernels::LaneOrder order_;
};

}  // namespace plumb::cuda
