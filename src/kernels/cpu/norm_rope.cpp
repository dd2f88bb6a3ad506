// Release RMS norms and rotary embedding (dsv4-forward.md sections 4.1, 4.2, 10.3): the weighted norm in float32
// rounded to bf16; the per-head q norm in bf16 tensor ops; RoPE with a float32 frequency table and angle, a float32
// complex multiply, bf16 result.
#include <cmath>
#include <vector>

#include "base/error.h"
#include "kernels/control.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/release_math.h"
#include "kernels/parallel.h"
#include "kernels/rope_frequencies.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::cpu {
namespace {

const ControlId kEpsDropped = register_control("rms_norm", "eps_dropped", "eps is left out of the mean square");
const ControlId kNeighbourScale = register_control("rms_norm", "rows_read_neighbour_scale",
                                                   "each row is scaled by the previous launch row's RMS");
const ControlId kFirstHeadScale =
    register_control("head_rms_norm", "first_head_scale", "every head is divided by the first head's RMS");
const ControlId kPairSwapped = register_control("rope", "pair_swapped", "the two values of each pair are swapped");
const ControlId kInverseIgnored = register_control("rope", "inverse_ignored", "the inverse rotation rotates forward");
const ControlId kYarnIgnored = register_control("rope", "yarn_ignored", "YaRN is left out of the frequencies");

}  // namespace

void CpuBackend::rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && y.dtype == DType::dtype_f32);
  PLUMB_CHECK(x.rows == y.rows && x.cols == y.cols && w.rows * w.cols == x.cols);
  std::vector<float> weight(size_t(x.cols));
  decode_weight_row(w, 0, 0, x.cols, weight.data());
  const ControlId plant = planted_control();
  const float inv_n = 1.0f / float(x.cols), eps = plant == kEpsDropped ? 0.0f : float(p.eps);
  parallel_chunks(x.rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* in = x.row<float>(r);
      const float* scaled_by = x.row<float>(plant == kNeighbourScale && r > 0 ? r - 1 : r);
      float* out = y.row<float>(r);
      const float scale = rsqrt_f32(dot_f32(scaled_by, scaled_by, x.cols) * inv_n + eps);
      for (int64_t c = 0; c < x.cols; ++c) out[c] = bf16(weight[size_t(c)] * (in[c] * scale));
    }
  });
}

void CpuBackend::head_rms_norm(HeadNormParams p, const Tensor& x) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && x.cols == p.heads * p.head_dim);
  const float inv_n = 1.0f / float(p.head_dim), eps = float(p.eps);
  const bool first_head_scale = planted(kFirstHeadScale);
  std::vector<float> square(size_t(p.head_dim));
  for (int64_t r = 0; r < x.rows; ++r) {
    float scale = 0.0f;
    for (int64_t h = 0; h < p.heads; ++h) {
      float* head = x.row<float>(r) + h * p.head_dim;
      for (int64_t c = 0; c < p.head_dim; ++c) square[size_t(c)] = bf16(head[c] * head[c]);
      const float mean = bf16(sum_f32(square.data(), p.head_dim) * inv_n);
      if (h == 0 || !first_head_scale) scale = bf16(rsqrt_f32(bf16(mean + eps)));
      for (int64_t c = 0; c < p.head_dim; ++c) head[c] = bf16(head[c] * scale);
    }
  }
}

void CpuBackend::rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && x.cols % p.head_dim == 0 && int64_t(positions.size()) == x.rows);
  PLUMB_CHECK(p.rope_dims % 2 == 0 && p.rope_dims <= p.head_dim);
  const ControlId plant = planted_control();
  if (plant == kInverseIgnored) p.inverse = false;
  if (plant == kYarnIgnored) p.yarn_original = 0;
  const std::vector<float> freq = rope_frequencies_f32(p);
  const int64_t pairs = p.rope_dims / 2, heads = x.cols / p.head_dim, offset = p.head_dim - p.rope_dims;
  const int first = plant == kPairSwapped ? 1 : 0;
  for (int64_t r = 0; r < x.rows; ++r) {
    const float position = float(positions[size_t(r)]);
    for (int64_t k = 0; k < pairs; ++k) {
      const float angle = position * freq[size_t(k)];
      const float c = float(std::cos(double(angle))), s = float(std::sin(double(angle)));
      for (int64_t h = 0; h < heads; ++h) {
        float* pair = x.row<float>(r) + h * p.head_dim + offset + 2 * k;
        const float a = pair[first], b = pair[1 - first];
        if (p.inverse) {  // multiply by the conjugate (c - i s)
          pair[0] = bf16(a * c + b * s);
          pair[1] = bf16(b * c - a * s);
        } else {
          pair[0] = bf16(a * c - b * s);
          pair[1] = bf16(a * s + b * c);
        }
      }
    }
  }
}

}  // namespace plumb::kernels::cpu
