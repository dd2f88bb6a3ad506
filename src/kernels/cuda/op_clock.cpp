#include "kernels/cuda/op_clock.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>


namespace plumb::cuda {
namespace {
thread_local int depth = 0;
}

OpClock::OpClock(std::function<void()> wait_for_device) : wait_(std::move(wait_for_device)) {
  const char* v = std::getenv("PLUMB_CUDA_OP_TIMES");
  on_ = v && *v && std::strcmp(v, "0") != 0;
}

OpClock::~OpClock() {
  if (!on_ || rows_.empty()) return;
  std::vector<std::pair<std::string, Row>> sorted(rows_.begin(), rows_.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double total = 0;
  for (const auto& [op, row] : sorted) total += row.seconds;
  fmt::print(stderr, "\ncuda op times (PLUMB_CUDA_OP_TIMES: synchronized before and after each op)\n");
  fmt::print(stderr, "{:<44} {:>8} {:>11} {:>10} {:>6}\n", "op", "calls", "total ms", "mean us", "share");
  for (const auto& [op, row] : sorted)
    fmt::print(stderr, "{:<44} {:>8} {:>11.2f} {:>10.1f} {:>5.1f}%\n", op, row.calls, row.seconds * 1e3,
               row.seconds / double(row.calls) * 1e6, 100.0 * row.seconds / total);
}

void OpClock::add(const std::string& op, double seconds) {
  Row& r = rows_[op];
  ++r.calls;
  r.seconds += seconds;
}

OpScope::OpScope(OpClock& clock, std::string op) : clock_(clock), op_(std::move(op)) {
  if (!clock_.on() || depth++ > 0) return;
  outermost_ = true;
  clock_.wait_for_device();
  start_ = std::chrono::steady_clock::now();
}

OpScope::~OpScope() {
  if (!clock_.on()) return;
  --depth;
  if (!outermost_) return;
  try {
    clock_.wait_for_device();
  } catch (...) {  // a destructor must not throw; the next op reports the device's error
  }
  clock_.add(op_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

}  // namespace plumb::cuda
