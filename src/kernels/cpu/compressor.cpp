// Release compressor (dsv4-forward.md sections 7.3, 10.3 item 7): float32 projections of bf16 inputs, position
// bias added in float32; pooling = per-channel float32 softmax over the group's entries in entry order, weighted
// sum in entry order, rounded to bf16.
#include <cmath>
#include <limits>
#include <vector>

#include "base/error.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/release_math.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::cpu {

void CpuBackend::compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                                  const Tensor& x, const Tensor& kv, const Tensor& score) {
  const int64_t width = (p.overlap ? 2 : 1) * p.width;
  PLUMB_CHECK(kv.cols == width && score.cols == width && w.ape.rows == p.ratio && w.ape.cols == width);
  PLUMB_CHECK(int64_t(positions.size()) == x.rows);
  const LinearParams f32{.output = Rounding::f32};
  linear(f32, w.wkv, x, kv);
  linear(f32, w.wgate, x, score);
  std::vector<float> ape(static_cast<size_t>(width));
  for (int64_t r = 0; r < x.rows; ++r) {
    decode_weight_row(w.ape, positions[size_t(r)] % p.ratio, 0, width, ape.data());
    for (int64_t c = 0; c < width; ++c) score.row<float>(r)[c] += ape[size_t(c)];
  }
}

void CpuBackend::compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                               std::span<const CompressRow> rows, const Tensor& out) {
  PLUMB_CHECK(out.dtype == DType::dtype_f32 && out.cols == p.width && out.rows == int64_t(rows.size()));
  const int64_t r = p.ratio, entries = (p.overlap ? 2 : 1) * r;
  std::vector<const float*> kv(static_cast<size_t>(entries)), score(static_cast<size_t>(entries));
  std::vector<float> weight(static_cast<size_t>(entries));
  for (size_t i = 0; i < rows.size(); ++i) {
    // Entry e: group j-1's first half (e < r) then group j's second half when overlapping; a missing group -1
    // has weight exactly 0 and is skipped.
    for (int64_t e = 0; e < entries; ++e) {
      const bool previous = p.overlap && e < r;
      const int64_t token = previous ? (rows[i].group - 1) * r + e : rows[i].group * r + (e % r);
      kv[size_t(e)] = score[size_t(e)] = nullptr;
      if (token < 0) continue;
      const int64_t ring_row = rows[i].slot * p.ring_rows + token % p.ring_rows;
      const int64_t channel = (p.overlap && !previous) ? p.width : 0;
      kv[size_t(e)] = kv_ring.row<float>(ring_row) + channel;
      score[size_t(e)] = score_ring.row<float>(ring_row) + channel;
    }
    for (int64_t ch = 0; ch < p.width; ++ch) {
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t e = 0; e < entries; ++e)
        if (score[size_t(e)]) m = std::max(m, score[size_t(e)][ch]);
      float sum = 0.0f;
      for (int64_t e = 0; e < entries; ++e)
        if (score[size_t(e)]) sum += (weight[size_t(e)] = exp_f32(score[size_t(e)][ch] - m));
      float acc = 0.0f;
      for (int64_t e = 0; e < entries; ++e)
        if (score[size_t(e)]) acc += (weight[size_t(e)] / sum) * kv[size_t(e)][ch];
      out.row<float>(int64_t(i))[ch] = bf16(acc);
    }
  }
}

}  // namespace plumb::kernels::cpu
