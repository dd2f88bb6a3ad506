// Device time of each kernel a LaunchQueue runs, for finding where a round's time goes (PLUMB_CUDA_KERNEL_TIMES=1).
// Each flush runs as a graph of its kernels with an event record node between each two, so the device runs them
// back to back and kernel i's time is the span between its two events (the node gap included). The cached graphs
// are not used while timing. The table groups launches by kernel name and grid. For the flushes whose launches run
// on lanes (a forward's layer as served; not the op timer's flushes of one op each) it also says how much of each
// group's time lies on the longest chain the lanes allow (critical_path.h): the time those flushes take with their
// lanes side by side, were each kernel as fast as it is alone. With chains on (PLUMB_CUDA_KERNEL_TIMES=2) the table
// is followed by the launches of the first flush of each lane shape: those on its longest chain in order, then those
// beside it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

namespace plumb::cuda {

class LaunchTape;

class KernelTimer {
 public:
  explicit KernelTimer(bool chains = false);
  ~KernelTimer();
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  // Runs the tape's launches in order on the default stream and waits for them.
  void run(LaunchTape& tape);
  // Per kernel and grid: calls, total and mean device time, largest total first, then the time in flushes with lanes
  // and, of that, on their longest chains; last, the summed serial times and longest chains of those flushes.
  std::string table() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  struct Sum {
    long long calls = 0;
    double ms = 0;
    double lane_ms = 0;  // of ms, the launches in flushes with lanes
    double path_ms = 0;  // of lane_ms, the launches on their flush's longest chain
  };
  std::map<std::tuple<std::string, unsigned, unsigned, unsigned>, Sum> sums_;
  double lane_serial_ms_ = 0, lane_path_ms_ = 0;  // flushes with lanes: every launch, and each one's longest chain
  bool chains_on_ = false;
  std::set<uint64_t> shapes_listed_;  // lane flush shapes whose launches chains_ lists
  std::string chains_;
};

}  // namespace plumb::cuda
