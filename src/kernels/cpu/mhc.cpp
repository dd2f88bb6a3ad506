// Release mHC (dsv4-forward.md section 6, kernel.py hc_split_sinkhorn): every intermediate in float32, the
// collapsed sublayer input and the mixed streams rounded to bf16.
#include <algorithm>
#include <vector>

#include "base/error.h"
#include "kernels/control.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/release_math.h"
#include "kernels/parallel.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::cpu {
namespace {

const ControlId kPreRmsOverFirstStream = register_control(
    "mhc_pre", "rms_over_first_stream", "the input RMS is taken over the first stream instead of all four");
const ControlId kPreCombTransposed =
    register_control("mhc_pre", "comb_transposed", "comb is written destination-major (transposed)");
const ControlId kSinkhornOneRound =
    register_control("mhc_pre", "sinkhorn_one_round", "Sinkhorn stops after the softmax and one column normalization");
const ControlId kPostCombTransposed =
    register_control("mhc_post", "comb_transposed", "comb is read destination-major (transposed)");
const ControlId kPostIgnored = register_control("mhc_post", "post_ignored", "the sublayer output is added unweighted");
const ControlId kHeadRmsOverFirstStream = register_control(
    "mhc_head", "rms_over_first_stream", "the input RMS is taken over the first stream instead of all four");

std::vector<float> decode_all(const Weight& w) {
  std::vector<float> v(size_t(w.rows * w.cols));
  for (int64_t r = 0; r < w.rows; ++r) decode_weight_row(w, r, 0, w.cols, v.data() + r * w.cols);
  return v;
}

// mix[m] = (fn[m] . x) * rsqrt(mean(x^2) + norm_eps), all float32; the mean over the first rms_n values.
void mixes(const std::vector<float>& fn, int64_t count, const float* x, int64_t n, int64_t rms_n, float norm_eps,
           float* mix) {
  const float rho = rsqrt_f32(dot_f32(x, x, rms_n) * (1.0f / float(rms_n)) + norm_eps);
  for (int64_t m = 0; m < count; ++m) mix[m] = dot_f32(fn.data() + m * n, x, n) * rho;
}

// c[j*hc + k] (j source, k destination): row softmax + eps, column normalize, then (iters - 1) x (row, column).
void sinkhorn(float* c, int64_t hc, int64_t iters, float eps) {
  for (int64_t j = 0; j < hc; ++j) {
    float* row = c + j * hc;
    const float m = *std::max_element(row, row + hc);
    float sum = 0.0f;
    for (int64_t k = 0; k < hc; ++k) sum += (row[k] = exp_f32(row[k] - m));
    for (int64_t k = 0; k < hc; ++k) row[k] = row[k] / sum + eps;
  }
  auto normalize_columns = [&] {
    for (int64_t k = 0; k < hc; ++k) {
      float sum = 0.0f;
      for (int64_t j = 0; j < hc; ++j) sum += c[j * hc + k];
      for (int64_t j = 0; j < hc; ++j) c[j * hc + k] /= sum + eps;
    }
  };
  normalize_columns();
  for (int64_t it = 1; it < iters; ++it) {
    for (int64_t j = 0; j < hc; ++j) {
      float sum = 0.0f;
      for (int64_t k = 0; k < hc; ++k) sum += c[j * hc + k];
      for (int64_t k = 0; k < hc; ++k) c[j * hc + k] /= sum + eps;
    }
    normalize_columns();
  }
}

// y[j] = bf16(sum_k pre[k] * x[k][j]), k ascending.
void collapse(const float* pre, const float* x, int64_t hc, int64_t d, float* y) {
  for (int64_t j = 0; j < d; ++j) {
    float s = 0.0f;
    for (int64_t k = 0; k < hc; ++k) s += pre[k] * x[k * d + j];
    y[j] = bf16(s);
  }
}

}  // namespace

void CpuBackend::hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
                        const Tensor& comb) {
  const int64_t hc = p.hc_mult, d = p.hidden, n = hc * d, count = (2 + hc) * hc;
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && x.cols == n && y.cols == d && post.cols == hc && comb.cols == hc * hc);
  PLUMB_CHECK(w.fn.rows == count && w.fn.cols == n && w.base.cols == count && w.scale.cols == 3);
  const std::vector<float> fn = decode_all(w.fn), base = decode_all(w.base), scale = decode_all(w.scale);
  const float eps = float(p.hc_eps);
  const ControlId plant = planted_control();
  const int64_t rms_n = plant == kPreRmsOverFirstStream ? d : n;
  const int64_t iters = plant == kSinkhornOneRound ? 1 : p.sinkhorn_iters;
  parallel_chunks(x.rows, 4, [&](int64_t r0, int64_t r1) {
    std::vector<float> mix(static_cast<size_t>(count)), pre(static_cast<size_t>(hc));
    for (int64_t r = r0; r < r1; ++r) {
      const float* in = x.row<float>(r);
      mixes(fn, count, in, n, rms_n, float(p.norm_eps), mix.data());
      for (int64_t k = 0; k < hc; ++k) {
        pre[size_t(k)] = sigmoid_f32(mix[size_t(k)] * scale[0] + base[size_t(k)]) + eps;
        post.row<float>(r)[k] = 2.0f * sigmoid_f32(mix[size_t(hc + k)] * scale[1] + base[size_t(hc + k)]);
      }
      float* c = comb.row<float>(r);
      for (int64_t i = 0; i < hc * hc; ++i) c[i] = mix[size_t(2 * hc + i)] * scale[2] + base[size_t(2 * hc + i)];
      sinkhorn(c, hc, iters, eps);
      if (plant == kPreCombTransposed)
        for (int64_t j = 0; j < hc; ++j)
          for (int64_t k = j + 1; k < hc; ++k) std::swap(c[j * hc + k], c[k * hc + j]);
      collapse(pre.data(), in, hc, d, y.row<float>(r));
    }
  });
}

void CpuBackend::hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
                         const Tensor& out) {
  const int64_t hc = p.hc_mult, d = p.hidden;
  PLUMB_CHECK(f.dtype == DType::dtype_f32 && f.cols == d && x.cols == hc * d && out.cols == hc * d);
  const ControlId plant = planted_control();
  const bool transposed = plant == kPostCombTransposed, post_ignored = plant == kPostIgnored;
  for (int64_t r = 0; r < x.rows; ++r) {
    const float *in = x.row<float>(r), *fr = f.row<float>(r), *po = post.row<float>(r), *c = comb.row<float>(r);
    float* o = out.row<float>(r);
    for (int64_t k = 0; k < hc; ++k)
      for (int64_t j = 0; j < d; ++j) {
        float s = 0.0f;
        for (int64_t src = 0; src < hc; ++src) s += c[transposed ? k * hc + src : src * hc + k] * in[src * d + j];
        o[k * d + j] = bf16((post_ignored ? 1.0f : po[k]) * fr[j] + s);
      }
  }
}

void CpuBackend::hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) {
  const int64_t hc = p.hc_mult, d = p.hidden, n = hc * d;
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && x.cols == n && y.cols == d && w.fn.rows == hc && w.fn.cols == n);
  const std::vector<float> fn = decode_all(w.fn), base = decode_all(w.base), scale = decode_all(w.scale);
  std::vector<float> mix(static_cast<size_t>(hc));
  const int64_t rms_n = planted(kHeadRmsOverFirstStream) ? d : n;
  for (int64_t r = 0; r < x.rows; ++r) {
    const float* in = x.row<float>(r);
    mixes(fn, hc, in, n, rms_n, float(p.norm_eps), mix.data());
    for (int64_t k = 0; k < hc; ++k)
      mix[size_t(k)] = sigmoid_f32(mix[size_t(k)] * scale[0] + base[size_t(k)]) + float(p.hc_eps);
    collapse(mix.data(), in, hc, d, y.row<float>(r));
  }
}

}  // namespace plumb::kernels::cpu
