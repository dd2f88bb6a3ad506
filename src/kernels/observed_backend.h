// A Backend decorator that runs every op on an inner backend and tells an observer when each op begins and ends,
// with the tensors the op wrote. Observers: the op recorder (recording_backend.h: outputs in call order, to find
// where two backends part) and the op timer (op_timer.h: wall time per op and per op class).
#pragma once

#include <initializer_list>
#include <memory>

#include "kernels/backend.h"

namespace plumb::kernels {

struct OpOutput {
  const char* name;  // "y", "ids", ...
  const Tensor* tensor;  // null: an optional output the call did not ask for (observers skip it)
};

class OpObserver {
 public:
  virtual ~OpObserver() = default;
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
// synchronize() pass through unobserved. Lane hints are not passed on: observed ops run one after another.
std::unique_ptr<Backend> make_observed_backend(std::unique_ptr<Backend> inner, std::unique_ptr<OpObserver> observer);
std::unique_ptr<Backend> make_observed_backend(std::unique_ptr<Backend> inner, OpObserver& observer);
std::unique_ptr<Backend> make_observed_backend(Backend& inner, OpObserver& observer);

}  // namespace plumb::kernels
