// Oracle sparse attention with sinks (dsv4-forward.md section 7.6): a softmax over the row's window and
// compressed keys plus one sink logit per head whose value is zero, in float64.
#include <algorithm>
#include <cmath>
#include <vector>

#include "base/error.h"
#include "kernels/parallel.h"
#include "kernels/ref/ref_backend.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::ref {

void RefBackend::attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                           const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                           const Tensor& out) {
  const int64_t d = p.head_dim;
  PLUMB_CHECK(q.dtype == DType::dtype_f64 && q.cols == p.heads * d && out.cols == q.cols && ring.cols == d);
  PLUMB_CHECK(int64_t(rows.size()) == q.rows && sinks.cols == p.heads);
  parallel_chunks(q.rows, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const TokenRow row = rows[size_t(r)];
      std::vector<const double*> keys;
      for (int64_t pos = std::max<int64_t>(0, row.position - p.window + 1); pos <= row.position; ++pos)
        keys.push_back(ring.row<double>(row.slot * p.ring_rows + pos % p.ring_rows));
      if (p.compress_ratio > 0) {
        const int64_t visible = (row.position + 1) / p.compress_ratio;
        const int64_t base = row.slot * p.compressed_rows_per_slot;
        if (selected) {
          for (int64_t i = 0; i < selected->cols; ++i) {
            const int32_t j = selected->row<int32_t>(r)[i];
            if (j < 0) continue;
            PLUMB_CHECK(j < visible);
            keys.push_back(compressed.row<double>(base + j));
          }
        } else {
          for (int64_t j = 0; j < visible; ++j) keys.push_back(compressed.row<double>(base + j));
        }
      }
      std::vector<double> logits(keys.size());
      for (int64_t h = 0; h < p.heads; ++h) {
        const double* qh = q.row<double>(r) + h * d;
        const double sink = weight_value(sinks, 0, h);
        double m = sink;
        for (size_t v = 0; v < keys.size(); ++v) m = std::max(m, logits[v] = dot(qh, keys[v], d) * p.softmax_scale);
        double denominator = std::exp(sink - m);
        double* o = out.row<double>(r) + h * d;
        std::fill(o, o + d, 0.0);
        for (size_t v = 0; v < keys.size(); ++v) {
          const double weight = std::exp(logits[v] - m);
          denominator += weight;
          for (int64_t c = 0; c < d; ++c) o[c] += weight * keys[v][c];
        }
        for (int64_t c = 0; c < d; ++c) o[c] /= denominator;
      }
    }
  });
}

}  // namespace plumb::kernels::ref
