// The A/B rule of ENGINE.md section 7 for timings on shared machines: runs alternate base, new, new, base (after a
// discarded first run), and a metric is "faster" or "slower" only when both new runs are past both base runs by
// more than the margin (1%) in the same direction; anything else is "within noise".
#pragma once

#include <array>

namespace plumb::bench {

enum class NoiseVerdict { faster, slower, within_noise };

struct NoiseComparison {
  NoiseVerdict verdict = NoiseVerdict::within_noise;
  // new / base for the four (new, base) pairs: new1/base1, new1/base2, new2/base1, new2/base2.
  std::array<double, 4> ratios{};
  double ratio_min() const;
  double ratio_max() const;
};

// `higher_is_better`: tok/s (true) or a time such as TTFT (false). Values must be positive.
NoiseComparison apply_noise_rule(std::array<double, 2> base, std::array<double, 2> fresh, bool higher_is_better,
                                 double margin = 0.01);

const char* verdict_name(NoiseVerdict v);  // "faster", "slower", "within noise"

}  // namespace plumb::bench
