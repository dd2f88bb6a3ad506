// Release linears (dsv4-forward.md sections 10.1, 7.7): FP8 weights with FP8 activations, promoted to float32 once
// per 128-wide K block (acc += block_sum * (act_scale * weight_scale)); FP8 or bf16 weights with bf16 activations
// as one float32 dot product. Output rounded to bf16 or kept in float32.
#include <vector>

#include "base/error.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/control.h"
#include "kernels/cpu/release_math.h"
#include "kernels/parallel.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::cpu {
namespace {

constexpr int64_t kOutputChunk = 16;  // output columns per task

const ControlId kDropLastKBlock =
    register_control("fp8_linear", "drop_last_k_block", "the last 128-wide K block is skipped");
const ControlId kRowsReadFirstRow = register_control("fp8_linear", "rows_read_pass_first_row",
                                                     "every row of a launch reads the launch's first row");
const ControlId kGroupsReadFirstGroup = register_control("dense_linear", "groups_read_first_group",
                                                         "every output group reads the first group's input columns");
const ControlId kOutputScaleSkipped =
    register_control("dense_linear", "output_scale_skipped", "the output scale is not applied");

float finish(const LinearParams& p, float acc) {
  float v = p.output == Rounding::bf16 ? bf16(acc) : acc;
  if (p.output_scale != 1.0) {
    v *= float(p.output_scale);
    if (p.output == Rounding::bf16) v = bf16(v);
  }
  return v;
}

}  // namespace

void CpuBackend::linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && y.dtype == DType::dtype_f32 && x.rows == y.rows);
  PLUMB_CHECK(p.groups >= 1 && w.rows == y.cols && w.cols * p.groups == x.cols && w.rows % p.groups == 0);
  PLUMB_CHECK(!p.quantize_input || w.format == WeightFormat::fp8_blocks);
  const int64_t k = w.cols, rows_per_group = w.rows / p.groups, blocks = (k + kActBlock - 1) / kActBlock;
  const ControlId plant = planted_control();
  if (plant == kOutputScaleSkipped) p.output_scale = 1.0;
  const int64_t summed_blocks = blocks - (plant == kDropLastKBlock ? 1 : 0);

  // Quantized activations: each group's K segment is its own GEMM operand, blocks restart at the segment start.
  std::vector<float> q, qscale;
  if (p.quantize_input) {
    q.resize(size_t(x.rows * x.cols));
    qscale.resize(size_t(x.rows * p.groups * blocks));
    for (int64_t n = 0; n < x.rows; ++n)
      for (int64_t g = 0; g < p.groups; ++g)
        quantize_fp8_activation(x.row<float>(n) + g * k, k, q.data() + n * x.cols + g * k,
                                qscale.data() + (n * p.groups + g) * blocks);
  }

  parallel_chunks(w.rows, kOutputChunk, [&](int64_t o0, int64_t o1) {
    std::vector<float> wrow(static_cast<size_t>(k)), wscale(static_cast<size_t>(blocks));
    const auto& e4m3 = e4m3_values();
    const auto& e8m0 = e8m0_values();
    for (int64_t o = o0; o < o1; ++o) {
      const int64_t g = o / rows_per_group;
      if (p.quantize_input) {
        const uint8_t* codes = static_cast<const uint8_t*>(w.data) + o * k;
        for (int64_t c = 0; c < k; ++c) wrow[size_t(c)] = e4m3[codes[c]];
        for (int64_t b = 0; b < blocks; ++b) wscale[size_t(b)] = e8m0[w.scales[(o / 128) * w.scale_cols() + b]];
        for (int64_t n = 0; n < x.rows; ++n) {
          const int64_t source = plant == kRowsReadFirstRow ? 0 : n;
          const float* qa = q.data() + source * x.cols + g * k;
          const float* sa = qscale.data() + (source * p.groups + g) * blocks;
          float acc = 0.0f;
          for (int64_t b = 0; b < summed_blocks; ++b) {
            const int64_t begin = b * kActBlock, len = std::min(kActBlock, k - begin);
            acc += dot_f32(qa + begin, wrow.data() + begin, len) * (sa[b] * wscale[size_t(b)]);
          }
          y.row<float>(n)[o] = finish(p, acc);
        }
      } else {
        decode_weight_row(w, o, 0, k, wrow.data());
        const int64_t input_group = plant == kGroupsReadFirstGroup ? 0 : g;
        for (int64_t n = 0; n < x.rows; ++n)
          y.row<float>(n)[o] = finish(p, dot_f32(x.row<float>(n) + input_group * k, wrow.data(), k));
      }
    }
  });
}

}  // namespace plumb::kernels::cpu
