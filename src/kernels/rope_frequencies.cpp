// RoPE frequency tables in float64 (oracle) and in the release's float32 order of operations.
#include "kernels/rope_frequencies.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace plumb::kernels {
namespace {

bool uses_yarn(const RopeParams& p) { return p.yarn_original > 0; }

// Pair index whose wavelength fits `rotations` turns into the original context (release find_correction_dim).
double correction_dim(double rotations, const RopeParams& p) {
  return double(p.rope_dims) * std::log(double(p.yarn_original) / (rotations * 2.0 * std::numbers::pi)) /
         (2.0 * std::log(p.theta));
}

}  // namespace

YarnRange yarn_range(const RopeParams& p) {
  double low = std::max(std::floor(correction_dim(p.beta_fast, p)), 0.0);
  double high = std::min(std::ceil(correction_dim(p.beta_slow, p)), double(p.rope_dims - 1));
  if (low == high) high += 0.001;
  return {low, high};
}

std::vector<double> rope_frequencies_f64(const RopeParams& p) {
  const int64_t pairs = p.rope_dims / 2;
  std::vector<double> f(static_cast<size_t>(pairs));
  const YarnRange range = uses_yarn(p) ? yarn_range(p) : YarnRange{};
  for (int64_t k = 0; k < pairs; ++k) {
    const double base = 1.0 / std::pow(p.theta, double(2 * k) / double(p.rope_dims));
    if (!uses_yarn(p)) {
      f[size_t(k)] = base;
      continue;
    }
    const double ramp = std::clamp((double(k) - range.low) / (range.high - range.low), 0.0, 1.0);
    f[size_t(k)] = base / p.yarn_factor * ramp + base * (1.0 - ramp);
  }
  return f;
}

std::vector<float> rope_frequencies_f32(const RopeParams& p) {
  const int64_t pairs = p.rope_dims / 2;
  std::vector<float> f(static_cast<size_t>(pairs));
  const YarnRange range = uses_yarn(p) ? yarn_range(p) : YarnRange{};
  // Scalars of a tensor expression enter float32 arithmetic as float32 values.
  const float low = float(range.low), span = float(range.high - range.low), factor = float(p.yarn_factor);
  for (int64_t k = 0; k < pairs; ++k) {
    const float exponent = float(2 * k) / float(p.rope_dims);
    const float base = 1.0f / float(std::pow(double(float(p.theta)), double(exponent)));
    if (!uses_yarn(p)) {
      f[size_t(k)] = base;
      continue;
    }
    const float ramp = std::clamp((float(k) - low) / span, 0.0f, 1.0f);
    const float smooth = 1.0f - ramp;
    f[size_t(k)] = base / factor * (1.0f - smooth) + base * smooth;
  }
  return f;
}

}  // namespace plumb::kernels
