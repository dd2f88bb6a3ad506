// Device time of each kernel a LaunchQueue runs, for finding where a round's time goes (PLUMB_CUDA_KERNEL_TIMES=1).
// Each flush runs as a graph of its kernels with an event record node between each two, so the device runs them
// back to back and kernel i's time is the span between its two events (the node gap included). The cached graphs
// are not used while timing. The table groups launches by kernel name and grid, and says how much of each group's
// time lies on the longest chain the lanes allow (critical_path.h): the time a round takes with its lanes side by
// side, were each kernel as fast as it is alone.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>

namespace plumb::cuda {

class LaunchTape;

class KernelTimer {
 public:
  KernelTimer();
  ~KernelTimer();
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  // Runs the tape's launches in order on the default stream and waits for them.
  void run(LaunchTape& tape);
  // Per kernel and grid: calls, total and mean device time, largest total first, and the time on the longest chain;
  // then the summed times of every launch and of the longest chains.
  std::string table() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  struct Sum {
    long long calls = 0;
    double ms = 0;
    double path_ms = 0;  // of ms, the launches on their flush's longest chain
  };
  std::map<std::tuple<std::string, unsigned, unsigned, unsigned>, Sum> sums_;
  double serial_ms_ = 0, path_ms_ = 0;  // every launch; each flush's longest chain
};

}  // namespace plumb::cuda
