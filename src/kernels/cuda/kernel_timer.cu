#include "kernels/cuda/kernel_timer.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "kernels/cuda/critical_path.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernel_node.h"
#include "kernels/cuda/launch_tape.h"

namespace plumb::cuda {

struct KernelTimer::Impl {
  std::vector<cudaEvent_t> events;
  ~Impl() {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
  }
};

namespace {

// Two lines for one flush: its longest chain's launches in order, then the launches beside it (name and us each).
std::string chain_lines(const LaunchTape& tape, const std::vector<double>& times, const CriticalPath& path) {
  std::string on, beside;
  double on_ms = 0, all_ms = 0;
  for (size_t i = 0; i < tape.size(); ++i) {
    std::string& to = path.on_path[i] ? on : beside;
    to += fmt::format("{}{} {:.1f}", to.empty() ? "" : path.on_path[i] ? " > " : ", ", tape.entry(i).name,
                      1e3 * times[i]);
    (path.on_path[i] ? on_ms : all_ms) += times[i];
  }
  all_ms += on_ms;
  return fmt::format("chain of a flush ({} launches, {:.1f} of {:.1f} us): {}\n  beside it: {}\n", tape.size(),
                     1e3 * on_ms, 1e3 * all_ms, on, beside.empty() ? "-" : beside);
}

}  // namespace

KernelTimer::KernelTimer(bool chains) : impl_(std::make_unique<Impl>()), chains_on_(chains) {}

KernelTimer::~KernelTimer() = default;

void KernelTimer::run(LaunchTape& tape) {
  Impl& m = *impl_;
  const size_t n = tape.size();
  while (m.events.size() < n + 1) {
    cudaEvent_t e;
    PLUMB_CUDA_CHECK(cudaEventCreate(&e));
    m.events.push_back(e);
  }
  // A graph chain event, kernel, event, kernel, ..., event: the device runs it without waiting for the host.
  cudaGraph_t graph = nullptr;
  PLUMB_CUDA_CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t prev = nullptr;
  auto chain = [&](cudaGraphNode_t node) { prev = node; };
  cudaGraphNode_t node = nullptr;
  PLUMB_CUDA_CHECK(cudaGraphAddEventRecordNode(&node, graph, nullptr, 0, m.events[0]));
  chain(node);
  for (size_t i = 0; i < n; ++i) {
    const cudaKernelNodeParams p = kernel_node_params(tape.entry(i), tape.args(i));
    PLUMB_CUDA_CHECK(cudaGraphAddKernelNode(&node, graph, &prev, 1, &p));
    chain(node);
    PLUMB_CUDA_CHECK(cudaGraphAddEventRecordNode(&node, graph, &prev, 1, m.events[i + 1]));
    chain(node);
  }
  cudaGraphExec_t exec = nullptr;
  PLUMB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  PLUMB_CUDA_CHECK(cudaGraphLaunch(exec, cudaStreamLegacy));
  PLUMB_CUDA_CHECK(cudaEventSynchronize(m.events[n]));
  std::vector<double> times(n);
  for (size_t i = 0; i < n; ++i) {
    float ms = 0;
    PLUMB_CUDA_CHECK(cudaEventElapsedTime(&ms, m.events[i], m.events[i + 1]));
    times[i] = ms;
  }
  const CriticalPath path = critical_path(tape, times);
  bool lanes = false;  // a fork or a join: the flush's launches are not one chain
  for (size_t i = 0; i < n; ++i)
    for (int32_t p : tape.entry(i).also) lanes = lanes || p >= 0;
  for (size_t i = 0; i < n; ++i) {
    const LaunchTape::Entry& e = tape.entry(i);
    Sum& s = sums_[{e.name, e.grid.x, e.grid.y, e.grid.z}];
    ++s.calls;
    s.ms += times[i];
    if (!lanes) continue;
    s.lane_ms += times[i];
    if (path.on_path[i]) s.path_ms += times[i];
    lane_serial_ms_ += times[i];
  }
  if (lanes) lane_path_ms_ += path.length;
  constexpr size_t kShapesListed = 32;
  if (lanes && chains_on_ && shapes_listed_.size() < kShapesListed && shapes_listed_.insert(tape.shape_hash()).second)
    chains_ += chain_lines(tape, times, path);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

std::string KernelTimer::table() const {
  std::vector<std::pair<std::tuple<std::string, unsigned, unsigned, unsigned>, Sum>> rows(sums_.begin(), sums_.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  double total = 0;
  for (const auto& r : rows) total += r.second.ms;
  std::string out = fmt::format("{:<22} {:>16} {:>8} {:>10} {:>9} {:>6} {:>13} {:>12}\n", "kernel (device time)",
                                "grid", "calls", "total ms", "mean us", "share", "in lanes ms", "on chain ms");
  for (const auto& [key, s] : rows) {
    const auto& [name, x, y, z] = key;
    out += fmt::format("{:<22} {:>16} {:>8} {:>10.2f} {:>9.1f} {:>5.1f}% {:>13.2f} {:>12.2f}\n", name,
                       fmt::format("{}x{}x{}", x, y, z), s.calls, s.ms, 1e3 * s.ms / double(s.calls),
                       100.0 * s.ms / total, s.lane_ms, s.path_ms);
  }
  // Fewer than six fields: scripts that sum the rows above (tools/device/ab-builds.sh) skip it.
  out += fmt::format("lane_flushes_longest_chains_ms={:.2f} lane_flushes_serial_ms={:.2f}\n", lane_path_ms_,
                     lane_serial_ms_);
  return chains_.empty() ? out : out + "\n" + chains_;
}

}  // namespace plumb::cuda
