// RoPE frequency tables (dsv4-forward.md section 4.2): f_k = theta^(-2k/rope_dims) for pair k, with YaRN blending
// f_k into f_k / factor between the correction dims of beta_fast and beta_slow. The release builds the table in
// float32 (as precompute_freqs_cis does); the oracle in float64.
#pragma once

#include <vector>

#include "kernels/ops.h"

namespace plumb::kernels {

struct YarnRange {
  double low = 0, high = 0;  // ramp from 0 at pair `low` to 1 at pair `high`
};
// The release's find_correction_range (floor/ceil, clamped to [0, rope_dims - 1]; high bumped by 0.001 if equal).
YarnRange yarn_range(const RopeParams& p);

std::vector<double> rope_frequencies_f64(const RopeParams& p);
std::vector<float> rope_frequencies_f32(const RopeParams& p);

}  // namespace plumb::kernels
