// Per-op wall time of the CUDA backend, for finding where a layer's time goes: with PLUMB_CUDA_OP_TIMES=1 each op
// waits for the device before and after it runs (so a row holds its staging, launches and kernels), and the table
// of calls, total and mean time per op is printed to stderr when the backend closes. Off, a scope costs one branch.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

namespace plumb::cuda {

class OpClock {
 public:
  explicit OpClock(std::function<void()> wait_for_device);  // the CUDA backend passes cuda::synchronize
  ~OpClock();  // prints the table when on
  bool on() const { return on_; }
  void wait_for_device() const { wait_(); }
  void add(const std::string& op, double seconds);

 private:
  std::function<void()> wait_;
  struct Row {
    int64_t calls = 0;
    double seconds = 0;
  };
  bool on_ = false;
  std::map<std::string, Row> rows_;
};

// Times one op into `clock` (nested scopes count only in the outermost, so an op built from ops counts once).
class OpScope {
 public:
  OpScope(OpClock& clock, const char* op) : OpScope(clock, std::string(clock.on() ? op : "")) {}
  OpScope(OpClock& clock, std::string op);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  OpClock& clock_;
  std::string op_;
  bool outermost_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace plumb::cuda
