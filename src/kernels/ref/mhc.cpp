// Oracle mHC (dsv4-forward.md section 6): hc_pre with its Sinkhorn normalization, hc_post, hc_head, in float64.
#include <algorithm>
#include <cmath>
#include <vector>

#include "base/error.h"
#include "kernels/parallel.h"
#include "kernels/ref/ref_backend.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::ref {
namespace {

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

std::vector<double> decode_all(const Weight& w) {
  std::vector<double> v(size_t(w.rows * w.cols));
  for (int64_t r = 0; r < w.rows; ++r) decode_weight_row(w, r, 0, w.cols, v.data() + r * w.cols);
  return v;
}

// mix[m] = rho * fn[m] . x with rho the inverse RMS of all hc * hidden values.
void mixes(const std::vector<double>& fn, int64_t count, const double* x, int64_t n, double norm_eps, double* mix) {
  const double rho = 1.0 / std::sqrt(dot(x, x, n) / double(n) + norm_eps);
  for (int64_t m = 0; m < count; ++m) mix[m] = rho * dot(fn.data() + m * n, x, n);
}

// c[j*hc + k] (j source, k destination): row softmax + eps, column normalize, then (iters - 1) x (row, column).
void sinkhorn(double* c, int64_t hc, int64_t iters, double eps) {
  for (int64_t j = 0; j < hc; ++j) {
    double* row = c + j * hc;
    const double m = *std::max_element(row, row + hc);
    double sum = 0.0;
    for (int64_t k = 0; k < hc; ++k) sum += (row[k] = std::exp(row[k] - m));
    for (int64_t k = 0; k < hc; ++k) row[k] = row[k] / sum + eps;
  }
  auto normalize_columns = [&] {
    for (int64_t k = 0; k < hc; ++k) {
      double sum = 0.0;
      for (int64_t j = 0; j < hc; ++j) sum += c[j * hc + k];
      for (int64_t j = 0; j < hc; ++j) c[j * hc + k] /= sum + eps;
    }
  };
  normalize_columns();
  for (int64_t it = 1; it < iters; ++it) {
    for (int64_t j = 0; j < hc; ++j) {
      double sum = 0.0;
      for (int64_t k = 0; k < hc; ++k) sum += c[j * hc + k];
      for (int64_t k = 0; k < hc; ++k) c[j * hc + k] /= sum + eps;
    }
    normalize_columns();
  }
}

}  // namespace

void RefBackend::hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
                        const Tensor& comb) {
  const int64_t hc = p.hc_mult, d = p.hidden, n = hc * d, count = (2 + hc) * hc;
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && x.cols == n && y.cols == d && post.cols == hc && comb.cols == hc * hc);
  PLUMB_CHECK(w.fn.rows == count && w.fn.cols == n && w.base.cols == count && w.scale.cols == 3);
  const std::vector<double> fn = decode_all(w.fn), base = decode_all(w.base), scale = decode_all(w.scale);
  parallel_chunks(x.rows, 4, [&](int64_t r0, int64_t r1) {
    std::vector<double> mix(static_cast<size_t>(count));
    for (int64_t r = r0; r < r1; ++r) {
      const double* in = x.row<double>(r);
      mixes(fn, count, in, n, p.norm_eps, mix.data());
      std::vector<double> pre(static_cast<size_t>(hc));
      for (int64_t k = 0; k < hc; ++k) {
        pre[size_t(k)] = sigmoid(mix[size_t(k)] * scale[0] + base[size_t(k)]) + p.hc_eps;
        post.row<double>(r)[k] = 2.0 * sigmoid(mix[size_t(hc + k)] * scale[1] + base[size_t(hc + k)]);
      }
      double* c = comb.row<double>(r);
      for (int64_t i = 0; i < hc * hc; ++i) c[i] = mix[size_t(2 * hc + i)] * scale[2] + base[size_t(2 * hc + i)];
      sinkhorn(c, hc, p.sinkhorn_iters, p.hc_eps);
      for (int64_t j = 0; j < d; ++j) {
        double s = 0.0;
        for (int64_t k = 0; k < hc; ++k) s += pre[size_t(k)] * in[k * d + j];
        y.row<double>(r)[j] = s;
      }
    }
  });
}

void RefBackend::hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
                         const Tensor& out) {
  const int64_t hc = p.hc_mult, d = p.hidden;
  PLUMB_CHECK(f.dtype == DType::dtype_f64 && f.cols == d && x.cols == hc * d && out.cols == hc * d);
  for (int64_t r = 0; r < x.rows; ++r) {
    const double *in = x.row<double>(r), *fr = f.row<double>(r), *po = post.row<double>(r), *c = comb.row<double>(r);
    double* o = out.row<double>(r);
    for (int64_t k = 0; k < hc; ++k)
      for (int64_t j = 0; j < d; ++j) {
        double s = 0.0;
        for (int64_t src = 0; src < hc; ++src) s += c[src * hc + k] * in[src * d + j];
        o[k * d + j] = po[k] * fr[j] + s;
      }
  }
}

void RefBackend::hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) {
  const int64_t hc = p.hc_mult, d = p.hidden, n = hc * d;
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && x.cols == n && y.cols == d && w.fn.rows == hc && w.fn.cols == n);
  const std::vector<double> fn = decode_all(w.fn), base = decode_all(w.base), scale = decode_all(w.scale);
  std::vector<double> mix(static_cast<size_t>(hc));
  for (int64_t r = 0; r < x.rows; ++r) {
    const double* in = x.row<double>(r);
    mixes(fn, hc, in, n, p.norm_eps, mix.data());
    for (int64_t k = 0; k < hc; ++k) mix[size_t(k)] = sigmoid(mix[size_t(k)] * scale[0] + base[size_t(k)]) + p.hc_eps;
    for (int64_t j = 0; j < d; ++j) {
      double s = 0.0;
      for (int64_t k = 0; k < hc; ++k) s += mix[size_t(k)] * in[k * d + j];
      y.row<double>(r)[j] = s;
    }
  }
}

}  // namespace plumb::kernels::ref
