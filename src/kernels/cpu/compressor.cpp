// Release compressor (dsv4-forward.md sections 7.3, 10.3 item 7): float32 projections of bf16 inputs, position
// bias added in float32; pooling = per-channel float32 softmax over the group's entries in entry order, weighted
// sum in entry order, rounded to bf16.
#include <cmath>
#include <limits>
#include <vector>

#include "base/error.h"
#include "kernels/control.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/release_math.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::cpu {
namespace {

const ControlId kApeRowOffByOne = register_control("compressor_project", "ape_row_off_by_one",
                                                   "the position bias of the next position in the group is added");
const ControlId kOverlapHalvesSwapped = register_control(
    "compressor_pool", "overlap_halves_swapped", "an overlapping row reads its own group's first channel half");
const ControlId kMissingGroupScoredZero = register_control(
    "compressor_pool", "missing_group_scored_zero", "row 0's missing previous group enters the softmax with score 0");
const ControlId kLastEntryDropped =
    register_control("compressor_pool", "last_entry_dropped", "the group's last token is left out of the pool");

}  // namespace

void CpuBackend::compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                                  const Tensor& x, const Tensor& kv, const Tensor& score) {
  const int64_t width = (p.overlap ? 2 : 1) * p.width;
  PLUMB_CHECK(kv.cols == width && score.cols == width && w.ape.rows == p.ratio && w.ape.cols == width);
  PLUMB_CHECK(int64_t(positions.size()) == x.rows);
  const LinearParams f32{.output = Rounding::f32};
  linear(f32, w.wkv, x, kv);
  linear(f32, w.wgate, x, score);
  std::vector<float> ape(static_cast<size_t>(width));
  const int64_t shift = planted(kApeRowOffByOne) ? 1 : 0;
  for (int64_t r = 0; r < x.rows; ++r) {
    decode_weight_row(w.ape, (positions[size_t(r)] + shift) % p.ratio, 0, width, ape.data());
    for (int64_t c = 0; c < width; ++c) score.row<float>(r)[c] += ape[size_t(c)];
  }
}

void CpuBackend::compress_pool(CompressParams p, const Tensor& kv_ring, const Tensor& score_ring,
                               std::span<const CompressRow> rows, const Tensor& out) {
  PLUMB_CHECK(out.dtype == DType::dtype_f32 && out.cols == p.width && out.rows == int64_t(rows.size()));
  const ControlId plant = planted_control();
  const int64_t r = p.ratio, entries = (p.overlap ? 2 : 1) * r - (plant == kLastEntryDropped ? 1 : 0);
  std::vector<const float*> kv(static_cast<size_t>(entries)), score(static_cast<size_t>(entries));
  std::vector<float> weight(static_cast<size_t>(entries)), zeros(static_cast<size_t>(p.width), 0.0f);
  for (size_t i = 0; i < rows.size(); ++i) {
    // Entry e: group j-1's first half (e < r) then group j's second half when overlapping; a missing group -1
    // has weight exactly 0 and is skipped.
    for (int64_t e = 0; e < entries; ++e) {
      const bool previous = p.overlap && e < r;
      const int64_t token = previous ? (rows[i].group - 1) * r + e : rows[i].group * r + (e % r);
      kv[size_t(e)] = score[size_t(e)] = nullptr;
      if (token < 0) {
        if (plant == kMissingGroupScoredZero) kv[size_t(e)] = score[size_t(e)] = zeros.data();
        continue;
      }
      const int64_t ring_row = rows[i].slot * p.ring_rows + token % p.ring_rows;
      const bool second_half = (p.overlap && !previous) != (plant == kOverlapHalvesSwapped && p.overlap);
      const int64_t channel = second_half ? p.width : 0;
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
