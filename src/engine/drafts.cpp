#include "engine/drafts.h"

#include <algorithm>
#include <cmath>

namespace plumb::engine {

std::vector<int32_t> context_draft(std::span<const int32_t> tokens, int32_t max_depth, int32_t min_match,
                                   int32_t max_match) {
  const int64_t n = int64_t(tokens.size());
  if (max_depth <= 0 || n < min_match + 1) return {};
  for (int32_t len = std::min<int64_t>(max_match, n - 1); len >= min_match; --len) {
    const auto suffix = tokens.subspan(size_t(n - len));
    // Latest earlier occurrence: its end must leave at least one following token before the suffix itself.
    for (int64_t start = n - len - 1; start >= 0; --start) {
      if (!std::equal(suffix.begin(), suffix.end(), tokens.begin() + start)) continue;
      const int64_t from = start + len;
      const int64_t take = std::min<int64_t>(max_depth, n - from);
      return std::vector<int32_t>(tokens.begin() + from, tokens.begin() + from + take);
    }
  }
  return {};
}

void DraftDepthPolicy::observe(int32_t proposed, int32_t accepted) {
  // Each proposed draft up to and including the first rejection is one Bernoulli trial of "accepted".
  const int32_t trials = std::min(proposed, accepted + 1);
  for (int32_t i = 0; i < trials; ++i) {
    const double hit = i < accepted ? 1.0 : 0.0;
    acceptance_ = 0.9 * acceptance_ + 0.1 * hit;
  }
}

int32_t DraftDepthPolicy::choose(int32_t max_depth, double round_seconds, double extra_row_seconds) const {
  if (max_depth <= 0) return 0;
  if (round_seconds <= 0) return max_depth;  // nothing measured yet: try drafting
  int32_t best = 0;
  double best_rate = 1.0 / round_seconds;
  double expected = 1.0, p = 1.0;
  for (int32_t k = 1; k <= max_depth; ++k) {
    p *= acceptance_;
    expected += p;
    const double rate = expected / (round_seconds + double(k) * std::max(extra_row_seconds, 0.0));
    if (rate > best_rate * 1.02) {  // demand a clear gain: the estimates are noisy
      best_rate = rate;
      best = k;
    }
  }
  return best;
}

void RoundCostModel::observe(int64_t rows, double seconds) {
  constexpr double kForget = 0.98;
  const double x = double(rows), y = seconds;
  s_w_ = kForget * s_w_ + 1;
  s_x_ = kForget * s_x_ + x;
  s_y_ = kForget * s_y_ + y;
  s_xx_ = kForget * s_xx_ + x * x;
  s_xy_ = kForget * s_xy_ + x * y;
  ++samples_;
  const double det = s_w_ * s_xx_ - s_x_ * s_x_;
  if (std::fabs(det) > 1e-9 * std::max(1.0, s_w_ * s_xx_)) {
    per_row_ = std::max(0.0, (s_w_ * s_xy_ - s_x_ * s_y_) / det);
    fixed_ = std::max(0.0, (s_y_ - per_row_ * s_x_) / s_w_);
  } else {
    per_row_ = s_x_ > 0 ? s_y_ / s_x_ : 0;  // one row count seen so far: all cost per row
    fixed_ = 0;
  }
}

}  // namespace plumb::engine
