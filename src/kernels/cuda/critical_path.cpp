#include "kernels/cuda/critical_path.h"

#include "base/error.h"

namespace plumb::cuda {

CriticalPath critical_path(const LaunchTape& tape, const std::vector<double>& times) {
  const size_t n = tape.size();
  PLUMB_CHECK(times.size() == n);
  std::vector<double> finish(n, 0.0);
  std::vector<int32_t> before(n, -1);  // the followed launch that finishes last
  auto consider = [&](size_t i, int32_t p) {
    if (p < 0) return;
    PLUMB_CHECK(size_t(p) < i);
    if (before[i] < 0 || finish[size_t(p)] > finish[size_t(before[i])]) before[i] = p;
  };
  CriticalPath out;
  int32_t last = -1;
  for (size_t i = 0; i < n; ++i) {
    const LaunchTape::Entry& e = tape.entry(i);
    consider(i, e.after);
    for (int32_t p : e.also) consider(i, p);
    finish[i] = times[i] + (before[i] < 0 ? 0.0 : finish[size_t(before[i])]);
    if (last < 0 || finish[i] > finish[size_t(last)]) last = int32_t(i);
  }
  out.on_path.assign(n, false);
  if (last < 0) return out;
  out.length = finish[size_t(last)];
  for (int32_t i = last; i >= 0; i = before[size_t(i)]) out.on_path[size_t(i)] = true;
  return out;
}

}  // namespace plumb::cuda
