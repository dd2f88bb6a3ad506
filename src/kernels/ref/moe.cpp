// Oracle MoE (dsv4-forward.md section 8): router (sqrt-softplus scores, hash table or top-k of score + bias),
// routed experts with the clamped SwiGLU and routing weight, summed in ascending expert id, and the shared expert.
#include <algorithm>
#include <cmath>
#include <vector>

#include "base/error.h"
#include "kernels/parallel.h"
#include "kernels/ref/ref_backend.h"
#include "kernels/topk.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::ref {
namespace {

// PyTorch's softplus with its default threshold: the identity above 20.
double softplus(double v) { return v > 20.0 ? v : std::log1p(std::exp(v)); }
double silu(double v) { return v / (1.0 + std::exp(-v)); }

// h = silu(min(a, limit)) * clamp(b, -limit, limit) * weight (no clamp when limit is 0).
double swiglu(double a, double b, double limit, double weight) {
  if (limit > 0) {
    a = std::min(a, limit);
    b = std::clamp(b, -limit, limit);
  }
  return silu(a) * b * weight;
}

// A row routed to an expert: the row and the expert's place among the row's choices.
struct Assignment {
  int64_t row, slot;
};

}  // namespace

void RefBackend::route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
                       const Tensor& ids, const Tensor& weights, const Tensor* margin) {
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && ids.dtype == DType::dtype_i32 && ids.cols == p.topk);
  PLUMB_CHECK(weights.cols == p.topk && w.gate.rows == p.experts && int64_t(tokens.size()) == x.rows);
  std::vector<double> logits_buffer(size_t(x.rows * p.experts));
  const Tensor logits = Tensor::of(logits_buffer.data(), DType::dtype_f64, x.rows, p.experts);
  linear({}, w.gate, x, logits);
  for (int64_t r = 0; r < x.rows; ++r) {
    std::vector<double> score(size_t(p.experts)), biased(size_t(p.experts));
    for (int64_t e = 0; e < p.experts; ++e) {
      score[size_t(e)] = std::sqrt(softplus(logits.row<double>(r)[e]));
      biased[size_t(e)] = p.hash ? 0.0 : score[size_t(e)] + weight_value(w.bias, 0, e);
    }
    std::vector<int64_t> chosen(size_t(p.topk));
    double gap = std::numeric_limits<double>::infinity();
    if (p.hash) {
      for (int64_t i = 0; i < p.topk; ++i) chosen[size_t(i)] = int64_t(weight_value(w.tid2eid, tokens[size_t(r)], i));
    } else {
      const TopK<double> top = top_k(std::span<const double>(biased), p.topk);
      chosen = top.order;
      gap = top.margin;
    }
    double sum = 0.0;
    for (int64_t e : chosen) sum += score[size_t(e)];
    for (int64_t i = 0; i < p.topk; ++i) {
      PLUMB_CHECK(chosen[size_t(i)] >= 0 && chosen[size_t(i)] < p.experts);
      ids.row<int32_t>(r)[i] = int32_t(chosen[size_t(i)]);
      weights.row<double>(r)[i] = score[size_t(chosen[size_t(i)])] / sum * p.route_scale;
    }
    if (margin) margin->row<double>(r)[0] = gap;
  }
}

void RefBackend::routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x,
                                const Tensor& ids, const Tensor& weights, const Tensor& out) {
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && x.cols == p.hidden && out.cols == p.hidden && ids.rows == x.rows);
  const int64_t k = ids.cols, n_experts = int64_t(experts.size());
  std::vector<std::vector<Assignment>> by_expert(static_cast<size_t>(n_experts));
  for (int64_t r = 0; r < x.rows; ++r)
    for (int64_t i = 0; i < k; ++i) {
      const int32_t e = ids.row<int32_t>(r)[i];
      PLUMB_CHECK(e >= 0 && e < n_experts);
      by_expert[size_t(e)].push_back({r, i});
    }
  // Each expert's weights are decoded once for all of its rows; per-assignment results land in h and o.
  std::vector<double> h(size_t(x.rows * k * p.inter)), o(size_t(x.rows * k * p.hidden));
  parallel_chunks(n_experts, 1, [&](int64_t e0, int64_t e1) {
    std::vector<double> w1(size_t(p.hidden)), w3(size_t(p.hidden)), w2(size_t(p.inter));
    for (int64_t e = e0; e < e1; ++e) {
      const auto& list = by_expert[size_t(e)];
      if (list.empty()) continue;
      const ExpertWeights& ew = experts[size_t(e)];
      for (int64_t j = 0; j < p.inter; ++j) {
        decode_weight_row(ew.w1, j, 0, p.hidden, w1.data());
        decode_weight_row(ew.w3, j, 0, p.hidden, w3.data());
        for (const Assignment& a : list) {
          const double* in = x.row<double>(a.row);
          h[size_t((a.row * k + a.slot) * p.inter + j)] =
              swiglu(dot(in, w1.data(), p.hidden), dot(in, w3.data(), p.hidden), p.swiglu_limit,
                     weights.row<double>(a.row)[a.slot]);
        }
      }
      for (int64_t c = 0; c < p.hidden; ++c) {
        decode_weight_row(ew.w2, c, 0, p.inter, w2.data());
        for (const Assignment& a : list)
          o[size_t((a.row * k + a.slot) * p.hidden + c)] =
              dot(h.data() + (a.row * k + a.slot) * p.inter, w2.data(), p.inter);
      }
    }
  });
  for (int64_t r = 0; r < x.rows; ++r) {
    std::vector<int64_t> slots(static_cast<size_t>(k));
    for (int64_t i = 0; i < k; ++i) slots[size_t(i)] = i;
    std::sort(slots.begin(), slots.end(),
              [&](int64_t a, int64_t b) { return ids.row<int32_t>(r)[a] < ids.row<int32_t>(r)[b]; });
    double* acc = out.row<double>(r);
    std::fill(acc, acc + p.hidden, 0.0);
    for (int64_t i : slots)
      for (int64_t c = 0; c < p.hidden; ++c) acc[c] += o[size_t((r * k + i) * p.hidden + c)];
  }
}

void RefBackend::shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) {
  PLUMB_CHECK(x.dtype == DType::dtype_f64 && x.cols == p.hidden && out.cols == p.hidden);
  std::vector<double> a_buf(size_t(x.rows * p.inter)), b_buf(a_buf.size());
  const Tensor a = Tensor::of(a_buf.data(), DType::dtype_f64, x.rows, p.inter);
  const Tensor b = Tensor::of(b_buf.data(), DType::dtype_f64, x.rows, p.inter);
  linear({}, w.w1, x, a);
  linear({}, w.w3, x, b);
  for (size_t i = 0; i < a_buf.size(); ++i) a_buf[i] = swiglu(a_buf[i], b_buf[i], p.swiglu_limit, 1.0);
  linear({}, w.w2, a, out);
}

}  // namespace plumb::kernels::ref
