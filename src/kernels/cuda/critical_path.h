// The longest chain of launches a tape's orderings allow (LaunchTape::Entry's `after` and `also`), given each
// launch's device time: how long the launches take when every lane runs beside the others and nothing else is in
// the way. The kernel timer runs launches one after another, so this says which of them set a round's pace with
// lanes, and which run beside that chain (shortening those cannot speed the round). Plain C++: tested on any
// machine.
#pragma once

#include <vector>

#include "kernels/cuda/launch_tape.h"

namespace plumb::cuda {

struct CriticalPath {
  double length = 0;          // the longest chain's summed time
  std::vector<bool> on_path;  // launch i is on that chain (the first of equally long ones)
};

// times[i]: launch i's device time. Every launch follows only earlier ones, so one pass in tape order does.
CriticalPath critical_path(const LaunchTape& tape, const std::vector<double>& times);

}  // namespace plumb::cuda
