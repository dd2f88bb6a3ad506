// Oracle embedding lookup, Hadamard transform and sums; quantization simulation is the identity (no rounding).
#include <cmath>

#include "base/error.h"
#include "kernels/ref/ref_backend.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::ref {

void RefBackend::embed(const Weight& table, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) {
  PLUMB_CHECK(out.dtype == DType::dtype_f64 && out.rows == int64_t(tokens.size()) && out.cols == copies * table.cols);
  for (int64_t r = 0; r < out.rows; ++r) {
    PLUMB_CHECK(tokens[size_t(r)] >= 0 && tokens[size_t(r)] < table.rows);
    for (int64_t c = 0; c < copies; ++c)
      decode_weight_row(table, tokens[size_t(r)], 0, table.cols, out.row<double>(r) + c * table.cols);
  }
}

void RefBackend::quant_sim(QuantSimParams p, const Tensor& x) { PLUMB_CHECK(x.dtype == DType::dtype_f64); }

void RefBackend::hadamard(HadamardParams p, const Tensor& x) {
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && x.cols % p.size == 0 && (p.size & (p.size - 1)) == 0);
  const double scale = 1.0 / std::sqrt(double(p.size));
  for (int64_t r = 0; r < x.rows; ++r)
    for (int64_t c0 = 0; c0 < x.cols; c0 += p.size) {
      double* v = x.row<double>(r) + c0;
      for (int64_t h = 1; h < p.size; h *= 2)
        for (int64_t i = 0; i < p.size; i += 2 * h)
          for (int64_t j = i; j < i + h; ++j) {
            const double a = v[j], b = v[j + h];
            v[j] = a + b;
            v[j + h] = a - b;
          }
      for (int64_t i = 0; i < p.size; ++i) v[i] *= scale;
    }
}

void RefBackend::add(const Tensor& a, const Tensor& b, const Tensor& out) {
  PLUMB_CHECK(a.dtype == DType::dtype_f64 && b.dtype == DType::dtype_f64 && out.dtype == DType::dtype_f64);
  PLUMB_CHECK(a.rows == out.rows && b.rows == out.rows && a.cols == out.cols && out.cols % b.cols == 0);
  for (int64_t r = 0; r < out.rows; ++r)
    for (int64_t c = 0; c < out.cols; ++c) out.row<double>(r)[c] = a.row<double>(r)[c] + b.row<double>(r)[c % b.cols];
}

}  // namespace plumb::kernels::ref
