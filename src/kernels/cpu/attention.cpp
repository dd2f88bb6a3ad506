// Release sparse attention with sinks (dsv4-forward.md section 7.6, kernel.py sparse_attn): the row's index list
// is [window positions oldest to newest, padded to `window` entries, then compressed rows in the given order],
// taken in blocks of `block` entries with an online softmax in float32; probabilities are rounded to bf16 for P.V
// while the denominator keeps them in float32; the sink joins the denominator after the last block; bf16 output.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "base/error.h"
#include "kernels/control.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/release_math.h"
#include "kernels/parallel.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::cpu {
namespace {

const ControlId kSinkLeftOut =
    register_control("window_attention", "sink_left_out", "the sink is left out of the softmax denominator");
const ControlId kWindowOffByOne =
    register_control("window_attention", "window_off_by_one", "the oldest position of a full window is not attended");
const ControlId kRowsReadFirstRow = register_control("window_attention", "rows_read_pass_first_row",
                                                     "every row of a launch attends the first row's slot and position");
const ControlId kPaddingReadsRow0 =
    register_control("sparse_attention", "padding_reads_row_0", "a -1 (padding) selection attends compressed row 0");
const ControlId kNewestRowHidden = register_control("sparse_attention", "newest_compressed_row_hidden",
                                                    "the newest visible compressed row is not attended");
const ControlId kAccumulatorNotRescaled = register_control(
    "sparse_attention", "accumulator_not_rescaled", "the P.V accumulator is not rescaled when the running max grows");

// One head's attention over the key list; an entry of nullptr is an invalid (padding) slot.
void attend(const AttentionParams& p, const float* q, const std::vector<const float*>& keys, float sink, float* out,
            ControlId plant) {
  const int64_t d = p.head_dim;
  const float scale = float(p.softmax_scale);
  float running_max = -std::numeric_limits<float>::infinity(), denominator = 0.0f;
  std::vector<float> acc(size_t(d), 0.0f), logit(size_t(p.block));
  for (size_t b0 = 0; b0 < keys.size(); b0 += size_t(p.block)) {
    const size_t b1 = std::min(keys.size(), b0 + size_t(p.block));
    float block_max = -std::numeric_limits<float>::infinity();
    bool nan_logit = false;
    for (size_t v = b0; v < b1; ++v)
      if (keys[v]) {
        logit[v - b0] = dot_f32(q, keys[v], d) * scale;
        nan_logit |= std::isnan(logit[v - b0]);
        block_max = std::max(block_max, logit[v - b0]);
      }
    // No entry with a probability: the update is the identity. A NaN logit is not skipped: it makes the output NaN.
    if (block_max == -std::numeric_limits<float>::infinity() && !nan_logit) continue;
    const float new_max = std::max(running_max, block_max);
    const float alpha = exp_f32(running_max - new_max);
    denominator *= alpha;
    if (plant != kAccumulatorNotRescaled)
      for (int64_t c = 0; c < d; ++c) acc[size_t(c)] *= alpha;
    for (size_t v = b0; v < b1; ++v) {
      if (!keys[v]) continue;
      const float prob = exp_f32(logit[v - b0] - new_max);
      denominator += prob;
      const float rounded = bf16(prob);
      for (int64_t c = 0; c < d; ++c) acc[size_t(c)] += rounded * keys[v][c];
    }
    running_max = new_max;
  }
  if (plant != kSinkLeftOut) denominator += exp_f32(sink - running_max);
  for (int64_t c = 0; c < d; ++c) out[c] = bf16(acc[size_t(c)] / denominator);
}

}  // namespace

void CpuBackend::attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                           const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                           const Tensor& out) {
  const int64_t d = p.head_dim;
  PLUMB_CHECK(q.dtype == DType::dtype_f32 && q.cols == p.heads * d && out.cols == q.cols && ring.cols == d);
  PLUMB_CHECK(int64_t(rows.size()) == q.rows && sinks.cols == p.heads && p.block > 0);
  const ControlId plant = planted_control();
  parallel_chunks(q.rows, 1, [&](int64_t r0, int64_t r1) {
    std::vector<const float*> keys;
    for (int64_t r = r0; r < r1; ++r) {
      const TokenRow row = rows[size_t(plant == kRowsReadFirstRow ? 0 : r)];
      keys.assign(size_t(p.window), nullptr);
      const int64_t first = std::max<int64_t>(0, row.position - p.window + (plant == kWindowOffByOne ? 2 : 1));
      for (int64_t pos = first; pos <= row.position; ++pos)
        keys[size_t(pos - first)] = ring.row<float>(row.slot * p.ring_rows + pos % p.ring_rows);
      if (p.compress_ratio > 0) {
        const int64_t visible = (row.position + 1) / p.compress_ratio;
        const int64_t base = row.slot * p.compressed_rows_per_slot;
        if (selected) {
          for (int64_t i = 0; i < selected->cols; ++i) {
            const int32_t j = selected->row<int32_t>(r)[i];
            PLUMB_CHECK(j < visible);
            keys.push_back(j < 0 ? (plant == kPaddingReadsRow0 ? compressed.row<float>(base) : nullptr)
                                 : compressed.row<float>(base + j));
          }
        } else {
          const int64_t attended = plant == kNewestRowHidden ? std::max<int64_t>(0, visible - 1) : visible;
          for (int64_t j = 0; j < attended; ++j) keys.push_back(compressed.row<float>(base + j));
        }
      }
      for (int64_t h = 0; h < p.heads; ++h)
        attend(p, q.row<float>(r) + h * d, keys, float(weight_value(sinks, 0, h)), out.row<float>(r) + h * d, plant);
    }
  });
}

}  // namespace plumb::kernels::cpu
