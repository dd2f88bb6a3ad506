// A LaunchQueue holds a backend's launches until something on the host needs their results (a download, an upload
// that could overwrite what they read, a free, a synchronize), then runs them in order on the default stream. A
// flush whose launches have the shape of one seen before (the same kernels with the same grids, the same argument
// sizes: a decode round with the same rows) replays a CUDA graph built the second time that shape came, after
// updating only the nodes whose arguments changed, so the host spends about a microsecond per launch where a
// launch of its own costs several, and the device runs the kernels back to back. Graph or not, the same kernels
// run with the same arguments, each after every launch it depends on (in recorded order, or as the graph's lanes
// allow), so the bits cannot change; PLUMB_CUDA_GRAPHS=0 turns graphs off.
// PLUMB_CUDA_KERNEL_TIMES=1 times each kernel on the device instead (kernel_timer.h; no graphs then).
// In a graph each kernel is joined to the one before on its lane by a programmatic edge (dependent_launch.cuh), so
// its launch overlaps the earlier kernel's tail; lanes (begin_lane .. end_lane, join_lanes) let independent chains
// of launches run side by side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/cuda/launch.h"

namespace plumb::cuda {

class KernelTimer;

struct LaunchQueueStats {
  int64_t launches = 0;        // kernels recorded
  int64_t flushes = 0;         // flushes with at least one launch
  int64_t graph_replays = 0;   // flushes run as a cached graph
  int64_t graphs_built = 0;    // graphs instantiated (replays included above from the second one on)
  int64_t nodes_updated = 0;   // kernel nodes whose arguments changed between replays
};

class LaunchQueue {
 public:
  explicit LaunchQueue(bool graphs);
  ~LaunchQueue();
  LaunchQueue(const LaunchQueue&) = delete;
  LaunchQueue& operator=(const LaunchQueue&) = delete;

  void record(const KernelCall& call);
  // Host bytes the recorded launches read: kept now, sent to the device at the flush; returns their device address.
  void* stage(const void* bytes, size_t n);
  // Sends the staged bytes, then runs every recorded launch in order (queued on the default stream; no wait).
  void flush();
  // Lanes of launches a graph may run side by side (launch_tape.h); launched one by one, they run in recorded order.
  void begin_lane(int lane);
  void end_lane();
  void join_lanes();
  int lane() const;  // where the next launch goes

  bool graphs() const { return graphs_; }
  // Whether graph kernels may start while the one before finishes (programmatic dependent launch; on unless
  // PLUMB_CUDA_PDL=0). The bits are the same either way: every kernel waits before it touches activations.
  bool dependent_launch() const;
  LaunchQueueStats stats() const { return stats_; }
  // The kernel timer's table, "" unless PLUMB_CUDA_KERNEL_TIMES=1.
  std::string kernel_times() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<KernelTimer> timer_;
  bool graphs_;
  LaunchQueueStats stats_;
};

}  // namespace plumb::cuda
