// Oracle lightning indexer (dsv4-forward.md section 7.5): float64 scores of every visible index row, top-k with
// plumb's tie rule (score descending, ties by ascending row, NaN after every number).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "base/error.h"
#include "kernels/parallel.h"
#include "kernels/ref/ref_backend.h"
#include "kernels/topk.h"

namespace plumb::kernels::ref {

void RefBackend::indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                              std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) {
  PLUMB_CHECK(q.dtype == DType::dtype_f64 && q.cols == p.heads * p.head_dim && w.cols == p.heads);
  PLUMB_CHECK(index_rows.cols == p.head_dim && selected.dtype == DType::dtype_i32 && selected.cols == p.topk);
  PLUMB_CHECK(int64_t(rows.size()) == q.rows);
  parallel_chunks(q.rows, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t visible = (rows[size_t(r)].position + 1) / p.ratio;
      PLUMB_CHECK(visible <= p.rows_per_slot);
      std::vector<double> score(static_cast<size_t>(visible));
      for (int64_t t = 0; t < visible; ++t) {
        const double* key = index_rows.row<double>(rows[size_t(r)].slot * p.rows_per_slot + t);
        double s = 0.0;
        for (int64_t h = 0; h < p.heads; ++h) {
          const double logit = dot(q.row<double>(r) + h * p.head_dim, key, p.head_dim);
          s += w.row<double>(r)[h] * (std::isnan(logit) ? logit : std::max(0.0, logit));  // relu keeps NaN
        }
        score[size_t(t)] = s;
      }
      const TopK<double> top = top_k(std::span<const double>(score), p.topk);
      int32_t* out = selected.row<int32_t>(r);
      for (int64_t i = 0; i < p.topk; ++i) out[i] = i < int64_t(top.order.size()) ? int32_t(top.order[size_t(i)]) : -1;
      if (margin) margin->row<double>(r)[0] = top.margin;
    }
  });
}

}  // namespace plumb::kernels::ref
