#include "bench/noise_rule.h"

#include <algorithm>

namespace plumb::bench {

double NoiseComparison::ratio_min() const { return *std::min_element(ratios.begin(), ratios.end()); }
double NoiseComparison::ratio_max() const { return *std::max_element(ratios.begin(), ratios.end()); }

NoiseComparison apply_noise_rule(std::array<double, 2> base, std::array<double, 2> fresh, bool higher_is_better,
                                 double margin) {
  NoiseComparison out;
  bool all_above = true, all_below = true;  // every new value past every base value, up or down
  size_t k = 0;
  for (double n : fresh) {
    for (double b : base) {
      out.ratios[k++] = n / b;
      all_above = all_above && n > b * (1 + margin);
      all_below = all_below && n < b * (1 - margin);
    }
  }
  const bool better = higher_is_better ? all_above : all_below;
  const bool worse = higher_is_better ? all_below : all_above;
  out.verdict = better ? NoiseVerdict::faster : worse ? NoiseVerdict::slower : NoiseVerdict::within_noise;
  return out;
}

const char* verdict_name(NoiseVerdict v) {
  switch (v) {
    case NoiseVerdict::faster: return "faster";
    case NoiseVerdict::slower: return "slower";
    case NoiseVerdict::within_noise: return "within noise";
  }
  return "within noise";
}

}  // namespace plumb::bench
