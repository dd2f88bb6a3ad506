// Oracle linear: y = W x in float64 with W decoded exactly, sums in ascending K; groups make W block-diagonal.
#include <vector>

#include "base/error.h"
#include "kernels/parallel.h"
#include "kernels/ref/ref_backend.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::ref {

void RefBackend::linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) {
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && y.dtype == DType::dtype_f64 && x.rows == y.rows);
  PLUMB_CHECK(p.groups >= 1 && w.rows == y.cols && w.cols * p.groups == x.cols && w.rows % p.groups == 0);
  const int64_t k = w.cols, rows_per_group = w.rows / p.groups;
  parallel_chunks(w.rows, 16, [&](int64_t o0, int64_t o1) {
    std::vector<double> wrow(static_cast<size_t>(k));
    for (int64_t o = o0; o < o1; ++o) {
      decode_weight_row(w, o, 0, k, wrow.data());
      const int64_t in_offset = (o / rows_per_group) * k;
      for (int64_t n = 0; n < x.rows; ++n)
        y.row<double>(n)[o] = dot(x.row<double>(n) + in_offset, wrow.data(), k) * p.output_scale;
    }
  });
}

}  // namespace plumb::kernels::ref
