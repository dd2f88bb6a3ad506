// Release MoE (dsv4-forward.md sections 8, 10.2, 10.3 items 12-13): float32 router; routed experts as FP4 GEMMs of
// FP8-quantized activations promoted once per 32-wide K block (acc += (block_sum * act_scale) * weight_scale),
// gate/up rounded to bf16, clamped SwiGLU times the routing weight in float32 rounded to bf16, down projection
// rounded to bf16, summed in float32 in ascending expert id; the shared expert through FP8 linears, unclamped.
// Each expert's weights are decoded once per launch for all rows routed to it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "kernels/control.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/release_math.h"
#include "kernels/parallel.h"
#include "kernels/topk.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::cpu {
namespace {

constexpr int64_t kFp4Block = 32;

const ControlId kBiasIgnoredInChoice =
    register_control("router", "bias_ignored_in_choice", "experts are chosen by score without the bias");
const ControlId kHashReadsNextToken =
    register_control("router", "hash_reads_next_token", "hash routing reads the next token's table row");
const ControlId kBiasInWeights =
    register_control("router", "bias_in_weights", "the routing weights use the biased scores");
const ControlId kRouteScaleSkipped = register_control("router", "route_scale_skipped", "route_scale is not applied");
const ControlId kExpertsRowsReadFirstRow = register_control(
    "fp4_experts", "rows_read_pass_first_row", "every row of an expert's list reads the list's first row");
const ControlId kExpertsScalePer64 = register_control(
    "fp4_experts", "scale_per_64", "odd 32-wide K blocks use the even block's weight scale (one scale per 64)");
const ControlId kExpertsNoClamp = register_control("fp4_experts", "no_clamp", "the SwiGLU clamp is left out");
const ControlId kSummedInRoutingOrder = register_control(
    "fp4_experts", "summed_in_routing_order", "expert outputs are summed in routing order instead of ascending id");
const ControlId kSharedClamped =
    register_control("shared_expert", "clamped", "the shared expert clamps its SwiGLU as the routed ones do");

float softplus_f32(float v) { return v > 20.0f ? v : float(std::log1p(std::exp(double(v)))); }

float swiglu(float a, float b, float limit, float weight) {
  if (limit > 0) {
    a = std::min(a, limit);
    b = std::clamp(b, -limit, limit);
  }
  return bf16(silu_f32(a) * b * weight);
}

struct Assignment {  // a row routed to an expert: the row and the expert's place among the row's choices
  int64_t row, slot;
};

// One output of an FP4 GEMM for a quantized activation: per 32-block, acc += (sum q*w) * act_scale * w_scale.
// scale_mask ~0 in production; ~1 plants a scale per 64.
float fp4_dot(const float* q, const float* act_scale, const float* w, const float* w_scale, int64_t k,
              int64_t scale_mask) {
  float acc = 0.0f;
  for (int64_t b = 0; b < k / kFp4Block; ++b)
    acc += dot_f32(q + b * kFp4Block, w + b * kFp4Block, kFp4Block) * act_scale[(b * kFp4Block) / kActBlock] *
           w_scale[b & scale_mask];
  return acc;
}

// Byte of two packed e2m1 codes -> their two values (low nibble first): one table read per byte.
const std::array<std::array<float, 2>, 256>& e2m1_pair_values() {
  static const auto table = [] {
    std::array<std::array<float, 2>, 256> t{};
    const auto& e2m1 = e2m1_values();
    for (int b = 0; b < 256; ++b) t[size_t(b)] = {e2m1[size_t(b & 0xF)], e2m1[size_t(b >> 4)]};
    return t;
  }();
  return table;
}

// Row `row` of an FP4 weight: e2m1 values and per-32 scales.
void fp4_row(const Weight& w, int64_t row, float* values, float* scales) {
  const auto& pairs = e2m1_pair_values();
  const auto& e8m0 = e8m0_values();
  const uint8_t* packed = static_cast<const uint8_t*>(w.data) + row * (w.cols / 2);
  for (int64_t c = 0; c < w.cols / 2; ++c) std::memcpy(values + 2 * c, pairs[packed[c]].data(), 2 * sizeof(float));
  const uint8_t* codes = w.scales + row * w.scale_cols();
  for (int64_t b = 0; b < w.cols / kFp4Block; ++b) scales[b] = e8m0[codes[b]];
}

}  // namespace

void CpuBackend::route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
                       const Tensor& ids, const Tensor& weights, const Tensor* margin) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && ids.dtype == DType::dtype_i32 && ids.cols == p.topk);
  PLUMB_CHECK(weights.cols == p.topk && w.gate.rows == p.experts && int64_t(tokens.size()) == x.rows);
  std::vector<float> logits_buffer(size_t(x.rows * p.experts));
  const Tensor logits = Tensor::of(logits_buffer.data(), DType::dtype_f32, x.rows, p.experts);
  linear({.output = Rounding::f32}, w.gate, x, logits);
  const ControlId plant = planted_control();
  std::vector<float> bias(size_t(p.experts), 0.0f);
  if (!p.hash && plant != kBiasIgnoredInChoice) decode_weight_row(w.bias, 0, 0, p.experts, bias.data());
  const float route_scale = plant == kRouteScaleSkipped ? 1.0f : float(p.route_scale);
  const bool next_token = plant == kHashReadsNextToken;
  for (int64_t r = 0; r < x.rows; ++r) {
    std::vector<float> score(size_t(p.experts)), biased(size_t(p.experts));
    for (int64_t e = 0; e < p.experts; ++e) {
      score[size_t(e)] = std::sqrt(softplus_f32(logits.row<float>(r)[e]));
      biased[size_t(e)] = score[size_t(e)] + bias[size_t(e)];
    }
    std::vector<int64_t> chosen(size_t(p.topk));
    double gap = std::numeric_limits<double>::infinity();
    if (p.hash) {
      const int64_t token = next_token ? (tokens[size_t(r)] + 1) % w.tid2eid.rows : tokens[size_t(r)];
      for (int64_t i = 0; i < p.topk; ++i) chosen[size_t(i)] = int64_t(weight_value(w.tid2eid, token, i));
    } else {
      const TopK<float> top = top_k(std::span<const float>(biased), p.topk);
      chosen = top.order;
      gap = top.margin;
    }
    const std::vector<float>& weighed = plant == kBiasInWeights ? biased : score;
    float sum = 0.0f;
    for (int64_t e : chosen) sum += weighed[size_t(e)];
    for (int64_t i = 0; i < p.topk; ++i) {
      PLUMB_CHECK(chosen[size_t(i)] >= 0 && chosen[size_t(i)] < p.experts);
      ids.row<int32_t>(r)[i] = int32_t(chosen[size_t(i)]);
      weights.row<float>(r)[i] = weighed[size_t(chosen[size_t(i)])] / sum * route_scale;
    }
    if (margin) margin->row<float>(r)[0] = float(gap);
  }
}

void CpuBackend::routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x,
                                const Tensor& ids, const Tensor& weights, const Tensor& out) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && x.cols == p.hidden && out.cols == p.hidden && ids.rows == x.rows);
  PLUMB_CHECK(p.hidden % kFp4Block == 0 && p.inter % kFp4Block == 0);
  const int64_t k = ids.cols, n_experts = int64_t(experts.size());
  const int64_t hidden_blocks = (p.hidden + kActBlock - 1) / kActBlock, inter_blocks = (p.inter + kActBlock - 1) / kActBlock;
  std::vector<std::vector<Assignment>> by_expert(static_cast<size_t>(n_experts));
  for (int64_t r = 0; r < x.rows; ++r)
    for (int64_t i = 0; i < k; ++i) {
      const int32_t e = ids.row<int32_t>(r)[i];
      PLUMB_CHECK(e >= 0 && e < n_experts);
      by_expert[size_t(e)].push_back({r, i});
    }
  // Activations quantized once per row; per-assignment hidden and output rows land in h and o.
  std::vector<float> xq(size_t(x.rows * p.hidden)), xs(size_t(x.rows * hidden_blocks));
  for (int64_t r = 0; r < x.rows; ++r)
    quantize_fp8_activation(x.row<float>(r), p.hidden, xq.data() + r * p.hidden, xs.data() + r * hidden_blocks);
  std::vector<float> h(size_t(x.rows * k * p.inter)), hq(h.size()), hs(size_t(x.rows * k * inter_blocks));
  std::vector<float> o(size_t(x.rows * k * p.hidden));
  const ControlId plant = planted_control();
  const float limit = plant == kExpertsNoClamp ? 0.0f : float(p.swiglu_limit);
  const int64_t scale_mask = plant == kExpertsScalePer64 ? ~int64_t(1) : ~int64_t(0);
  parallel_chunks(n_experts, 1, [&](int64_t e0, int64_t e1) {
    std::vector<float> w1(size_t(p.hidden)), w3(size_t(p.hidden)), w2(size_t(p.inter));
    std::vector<float> s1(size_t(p.hidden / kFp4Block)), s3(s1.size()), s2(size_t(p.inter / kFp4Block));
    for (int64_t e = e0; e < e1; ++e) {
      const auto& list = by_expert[size_t(e)];
      if (list.empty()) continue;
      const ExpertWeights& ew = experts[size_t(e)];
      for (int64_t j = 0; j < p.inter; ++j) {
        fp4_row(ew.w1, j, w1.data(), s1.data());
        fp4_row(ew.w3, j, w3.data(), s3.data());
        for (const Assignment& a : list) {
          const int64_t source = plant == kExpertsRowsReadFirstRow ? list.front().row : a.row;
          const float* q = xq.data() + source * p.hidden;
          const float* qs = xs.data() + source * hidden_blocks;
          const float gate = bf16(fp4_dot(q, qs, w1.data(), s1.data(), p.hidden, scale_mask));
          const float up = bf16(fp4_dot(q, qs, w3.data(), s3.data(), p.hidden, scale_mask));
          h[size_t((a.row * k + a.slot) * p.inter + j)] = swiglu(gate, up, limit, weights.row<float>(a.row)[a.slot]);
        }
      }
      for (const Assignment& a : list) {
        const int64_t at = a.row * k + a.slot;
        quantize_fp8_activation(h.data() + at * p.inter, p.inter, hq.data() + at * p.inter, hs.data() + at * inter_blocks);
      }
      for (int64_t c = 0; c < p.hidden; ++c) {
        fp4_row(ew.w2, c, w2.data(), s2.data());
        for (const Assignment& a : list) {
          const int64_t at = a.row * k + a.slot;
          o[size_t(at * p.hidden + c)] =
              bf16(fp4_dot(hq.data() + at * p.inter, hs.data() + at * inter_blocks, w2.data(), s2.data(), p.inter,
                           scale_mask));
        }
      }
    }
  });
  for (int64_t r = 0; r < x.rows; ++r) {
    std::vector<int64_t> slots(static_cast<size_t>(k));
    for (int64_t i = 0; i < k; ++i) slots[size_t(i)] = i;
    if (plant != kSummedInRoutingOrder)
      std::sort(slots.begin(), slots.end(),
                [&](int64_t a, int64_t b) { return ids.row<int32_t>(r)[a] < ids.row<int32_t>(r)[b]; });
    float* acc = out.row<float>(r);
    std::fill(acc, acc + p.hidden, 0.0f);
    for (int64_t i : slots)
      for (int64_t c = 0; c < p.hidden; ++c) acc[c] += o[size_t((r * k + i) * p.hidden + c)];
  }
}

void CpuBackend::shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && x.cols == p.hidden && out.cols == p.hidden);
  std::vector<float> a_buf(size_t(x.rows * p.inter)), b_buf(a_buf.size());
  const Tensor a = Tensor::of(a_buf.data(), DType::dtype_f32, x.rows, p.inter);
  const Tensor b = Tensor::of(b_buf.data(), DType::dtype_f32, x.rows, p.inter);
  const LinearParams fp8{.quantize_input = true};
  linear(fp8, w.w1, x, a);
  linear(fp8, w.w3, x, b);
  const float limit = planted(kSharedClamped) ? 10.0f : float(p.swiglu_limit);
  for (size_t i = 0; i < a_buf.size(); ++i) a_buf[i] = swiglu(a_buf[i], b_buf[i], limit, 1.0f);
  linear(fp8, w.w2, a, out);
}

}  // namespace plumb::kernels::cpu
