// Oracle RMS norms (weighted, per-head unweighted) and rotary embedding, in float64.
#include <cmath>
#include <vector>

#include "base/error.h"
#include "kernels/parallel.h"
#include "kernels/ref/ref_backend.h"
#include "kernels/rope_frequencies.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::ref {
namespace {

double inverse_rms(const double* x, int64_t n, double eps) { return 1.0 / std::sqrt(dot(x, x, n) / double(n) + eps); }

}  // namespace

void RefBackend::rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) {
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && y.dtype == DType::dtype_f64);
  PLUMB_CHECK(x.rows == y.rows && x.cols == y.cols && w.rows * w.cols == x.cols);
  std::vector<double> weight(size_t(x.cols));
  decode_weight_row(w, 0, 0, x.cols, weight.data());
  parallel_chunks(x.rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const double* in = x.row<double>(r);
      double* out = y.row<double>(r);
      const double scale = inverse_rms(in, x.cols, p.eps);
      for (int64_t c = 0; c < x.cols; ++c) out[c] = weight[size_t(c)] * (in[c] * scale);
    }
  });
}

void RefBackend::head_rms_norm(HeadNormParams p, const Tensor& x) {
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && x.cols == p.heads * p.head_dim);
  for (int64_t r = 0; r < x.rows; ++r)
    for (int64_t h = 0; h < p.heads; ++h) {
      double* head = x.row<double>(r) + h * p.head_dim;
      const double scale = inverse_rms(head, p.head_dim, p.eps);
      for (int64_t c = 0; c < p.head_dim; ++c) head[c] *= scale;
    }
}

void RefBackend::rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) {
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && x.cols % p.head_dim == 0 && int64_t(positions.size()) == x.rows);
  PLUMB_CHECK(p.rope_dims % 2 == 0 && p.rope_dims <= p.head_dim);
  const std::vector<double> freq = rope_frequencies_f64(p);
  const int64_t pairs = p.rope_dims / 2, heads = x.cols / p.head_dim, offset = p.head_dim - p.rope_dims;
  for (int64_t r = 0; r < x.rows; ++r) {
    for (int64_t k = 0; k < pairs; ++k) {
      const double angle = double(positions[size_t(r)]) * freq[size_t(k)] * (p.inverse ? -1.0 : 1.0);
      const double c = std::cos(angle), s = std::sin(angle);
      for (int64_t h = 0; h < heads; ++h) {
        double* pair = x.row<double>(r) + h * p.head_dim + offset + 2 * k;
        const double a = pair[0], b = pair[1];
        pair[0] = a * c - b * s;
        pair[1] = a * s + b * c;
      }
    }
  }
}

}  // namespace plumb::kernels::ref
