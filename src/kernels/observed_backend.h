// A Backend decorator that runs every op on an inner backend and tells an observer when each op begins and ends,
// with the tensors the op wrote. Observers: the op recorder (recording_backend.h: outputs in call order, to find
// where two backends part), the op timer (op_timer.h: wall time per op and per op class) and the lane checker
// (lane_check_backend.h: which ops may run at once and touch the same bytes).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>

#include "kernels/backend.h"

namespace plumb::kernels {

struct OpOutput {
  const char* name;  // "y", "ids", ...
  const Tensor* tensor;  // null: an optional output the call did not ask for (observers skip it)
};

// The tensors an op reads and writes (null entries: optional tensors the call did not pass), or for copy_rows the
// rows it reads from src and writes into dst (reads and writes are empty then).
struct OpAccess {
  std::initializer_list<const Tensor*> reads{}, writes{};  // default initializers: ops name only what they touch
  const Tensor* src = nullptr;
  std::span<const int64_t> src_rows{};
  const Tensor* dst = nullptr;
  std::span<const int64_t> dst_rows{};
};

enum class LaneHint : uint8_t { begin, end, join };

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  // Before begin(): what the op reads and writes (the lane checker compares them across lanes).
  virtual void accesses(const char* op, const OpAccess& access) { (void)op, (void)access; }
  // A download, upload or synchronize is about to wait for everything issued so far.
  virtual void host_sync() {}
  // Backend::begin_lane(lane), end_lane() or join_lanes() (lane 0 for the last two), before the inner backend's.
  virtual void lane_hint(LaneHint hint, int lane) { (void)hint, (void)lane; }
  // `op` is the Backend method's name ("linear", "attention", ...); `inner` is the observed backend.
  virtual void begin(Backend& inner, const char* op, const void* detail) { (void)inner, (void)op, (void)detail; }
  virtual void end(Backend& inner, const char* op, std::initializer_list<OpOutput> outputs) {
    (void)inner, (void)op, (void)outputs;
  }
};

// What begin() receives as `detail` for "linear": its params and weight (other ops pass null).
struct LinearDetail {
  const LinearParams* params;
  const Weight* weight;
};

// Wraps `inner`, owned or not; an observer passed by reference must outlive the result. Memory ops and
// synchronize() pass through, telling only host_sync(); lane hints pass through to the inner backend.
std::unique_ptr<Backend> make_observed_backend(std::unique_ptr<Backend> inner, std::unique_ptr<OpObserver> observer);
std::unique_ptr<Backend> make_observed_backend(std::unique_ptr<Backend> inner, OpObserver& observer);
std::unique_ptr<Backend> make_observed_backend(Backend& inner, OpObserver& observer);

}  // namespace plumb::kernels
