// Oracle compressor (dsv4-forward.md section 7.3): per-token projections, then per-channel softmax pooling of a
// complete group's entries, in float64.
#include <cmath>
#include <limits>
#include <vector>

#include "base/error.h"
#include "kernels/parallel.h"
#include "kernels/ref/ref_backend.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::ref {

void RefBackend::compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                                  const Tensor& x, const Tensor& kv, const Tensor& score) {
  const int64_t width = (p.overlap ? 2 : 1) * p.width;
  PLUMB_CHECK(kv.cols == width && score.cols == width && w.ape.rows == p.ratio && w.ape.cols == width);
  PLUMB_CHECK(int64_t(positions.size()) == x.rows);
  linear({}, w.wkv, x, kv);
  linear({}, w.wgate, x, score);
  std::vector<double> ape(static_cast<size_t>(width));
  for (int64_t r = 0; r < x.rows; ++r) {
    decode_weight_row(w.ape, positions[size_t(r)] % p.ratio, 0, width, ape.data());
    for (int64_t c = 0; c < width; ++c) score.row<double>(r)[c] += ape[size_t(c)];
  }
}

void RefBackend::compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                               std::span<const CompressRow> rows, const Tensor& out) {
  PLUMB_CHECK(out.dtype == DType::dtype_f64 && out.cols == p.width && out.rows == int64_t(rows.size()));
  const int64_t r = p.ratio, entries = (p.overlap ? 2 : 1) * r;
  for (size_t i = 0; i < rows.size(); ++i) {
    // Entry e: token and channel offset; group j-1's first half then group j's second half when overlapping.
    std::vector<const double*> kv(static_cast<size_t>(entries)), score(static_cast<size_t>(entries));
    for (int64_t e = 0; e < entries; ++e) {
      const bool previous = p.overlap && e < r;
      const int64_t token = previous ? (rows[i].group - 1) * r + e : rows[i].group * r + (e % r);
      if (token < 0) continue;  // group -1 of a CSA row 0: weight exactly 0
      const int64_t ring_row = rows[i].slot * p.ring_rows + token % p.ring_rows;
      const int64_t channel = (p.overlap && !previous) ? p.width : 0;
      kv[size_t(e)] = kv_ring.row<double>(ring_row) + channel;
      score[size_t(e)] = score_ring.row<double>(ring_row) + channel;
    }
    for (int64_t ch = 0; ch < p.width; ++ch) {
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t e = 0; e < entries; ++e)
        if (score[size_t(e)]) m = std::max(m, score[size_t(e)][ch]);
      double sum = 0.0, acc = 0.0;
      for (int64_t e = 0; e < entries; ++e) {
        if (!score[size_t(e)]) continue;
        const double weight = std::exp(score[size_t(e)][ch] - m);
        sum += weight;
        acc += weight * kv[size_t(e)][ch];
      }
      out.row<double>(int64_t(i))[ch] = acc / sum;
    }
  }
}

}  // namespace plumb::kernels::ref
