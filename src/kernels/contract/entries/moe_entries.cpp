// Contract entries of the MoE experts: the routed FP4 experts (Backend::routed_experts: gate/up FP4 GEMMs of FP8
// activations, clamped SwiGLU times the routing weight, FP8 quantization of h, down GEMM, outputs summed in
// ascending expert id), the same plus an addend (Backend::routed_experts_add: the shared expert's output added as
// Backend::add does) and the shared FP8 expert (Backend::shared_expert, unclamped). The oracle is the reference op:
// weights decoded exactly, no activation quantization, float64. Variants of the routed experts list each row's
// experts in another order: the sum runs in ascending id, so the output may not change by a bit.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "kernels/contract/entries.h"
#include "kernels/contract/entries/op_problem.h"
#include "kernels/control.h"

namespace plumb::contract {
namespace {

constexpr double kSwigluLimit = 10.0;

struct ExpertShape {
  const char* name;
  int64_t experts, hidden, inter;
  int32_t top_k;
  bool release;
};
constexpr ExpertShape kRoutedShapes[] = {
    {"tiny 8x256x128 top3", 8, 256, 128, 3, false},
    {"release 8 experts x4096x2048 top6", 8, 4096, 2048, 6, true},
};

class RoutedExpertsProblem : public OpProblem {
 public:
  // with_addend: Backend::routed_experts_add, its addend each row's routed output (the oracle's, rounded to bf16), so
  // an addend left out halves the output.
  RoutedExpertsProblem(const Binding& b, const ExpertShape& s, RowMix mix, int32_t rows, uint64_t seed,
                       bool with_addend = false)
      : OpProblem(b), s_(s), rows_(rows) {
    InputRng rng(seed * 7919 + uint64_t(s.hidden));
    // Scales put the gate and up pre-activations around 10, so the clamp is exercised.
    const int lo = s.hidden >= 4096 ? -4 : -3, hi = lo + 2;
    for (int64_t e = 0; e < s.experts; ++e) {
      w1_.push_back(random_fp4_matrix(s.inter, s.hidden, rng, lo, hi));
      w3_.push_back(random_fp4_matrix(s.inter, s.hidden, rng, lo, hi));
      w2_.push_back(random_fp4_matrix(s.hidden, s.inter, rng, -5, -3));
    }
    x_ = bf16_rows(fp8_exact_activations(rows, s.hidden, rng, -7, -5), rows, s.hidden);
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
    ids_.resize(size_t(rows * s.top_k));
    weights_.resize(ids_.size());
    for (int32_t r = 0; r < rows; ++r) {
      std::vector<int32_t> chosen;
      for (int32_t k = 0; k < s.top_k; ++k) {
        int32_t e;
        if (mix == RowMix::mix_same_routing) {
          e = int32_t(s.experts - 1 - k);  // listed in descending id, as no router orders them
        } else if (mix == RowMix::mix_disjoint_routing) {
          e = int32_t((r * s.top_k + k) % s.experts);
        } else {
          do e = rng.uniform_int(0, int32_t(s.experts - 1)); while (std::find(chosen.begin(), chosen.end(), e) != chosen.end());
        }
        chosen.push_back(e);
        ids_[size_t(r * s.top_k + k)] = e;
        // A third of the weights are 2^-8 to 2^-20 smaller: their experts' outputs are so much smaller that the
        // float32 sum of the outputs rounds, and its order (ascending id) shows.
        const int shrink = rng.uniform_int(0, 2) == 0 ? rng.uniform_int(8, 20) : 0;
        weights_[size_t(r * s.top_k + k)] = double(std::ldexp(float(rng.uniform(0.05, 0.6)), -shrink));
      }
    }
    for (int side : {kTest, kOracle})
      for (int64_t e = 0; e < s.experts; ++e) {
        kernels::Backend& be = backend(side);
        experts_[size_t(side)].push_back({be.upload_weight(weight_of(w1_[size_t(e)])),
                                          be.upload_weight(weight_of(w2_[size_t(e)])),
                                          be.upload_weight(weight_of(w3_[size_t(e)]))});
      }
    if (with_addend) {
      std::vector<int32_t> all(static_cast<size_t>(rows));
      std::iota(all.begin(), all.end(), 0);
      const std::vector<double> routed = compute(kOracle, all, 0);
      HostRows addend(rows, s.hidden);
      for (size_t i = 0; i < routed.size(); ++i) addend.v[i] = bf16_round(routed[i]);
      addend_ = std::move(addend);
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(s_.hidden); }
  int32_t variants() const override { return s_.top_k > 1 ? 2 : 1; }
  std::string variant_name(int32_t v) const override {
    return v == 0 ? "routing order" : "routing order rotated by one";
  }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t variant) override {
    kernels::Backend& b = backend(side);
    const int64_t m = int64_t(rows.size()), k = s_.top_k;
    std::vector<int32_t> ids(size_t(m * k));
    HostRows weights(m, k);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) {
        const size_t from = size_t(rows[size_t(i)] * k + (j + variant) % k);
        ids[size_t(i * k + j)] = ids_[from];
        weights.row(i)[j] = weights_[from];
      }
    const DeviceTensor x = upload_rows(b, x_, rows), id = upload_i32(b, ids, m, k), w = upload_all(b, weights);
    const DeviceTensor out = poisoned_act(b, m, s_.hidden);
    const kernels::ExpertParams p{.hidden = s_.hidden, .inter = s_.inter, .swiglu_limit = kSwigluLimit};
    if (addend_.rows == 0) {
      b.routed_experts(p, experts_[size_t(side)], x.t, id.t, w.t, out.t);
    } else {
      const DeviceTensor addend = upload_rows(b, addend_, rows), routed = poisoned_act(b, m, s_.hidden);
      b.routed_experts_add(p, experts_[size_t(side)], x.t, id.t, w.t, addend.t, routed.t, out.t);
    }
    std::vector<double> values;
    append_values(b, out.t, values);
    return values;
  }

 private:
  ExpertShape s_;
  int32_t rows_;
  std::vector<Fp4Matrix> w1_, w3_, w2_;
  HostRows x_;
  std::vector<int32_t> ids_;
  std::vector<double> weights_;
  std::array<std::vector<kernels::ExpertWeights>, 2> experts_;
  HostRows addend_;  // with_addend only
};

class SharedExpertProblem : public OpProblem {
 public:
  static constexpr int64_t kHidden = 256, kInter = 128;
  SharedExpertProblem(const Binding& b, RowMix mix, int32_t rows, uint64_t seed) : OpProblem(b), rows_(rows) {
    InputRng rng(seed * 6151 + 17);
    // Scales put some gate and up pre-activations past 10, where a clamp (which the shared expert has not) would bite.
    w1_ = random_fp8_matrix(kInter, kHidden, rng, -7, -6);
    w3_ = random_fp8_matrix(kInter, kHidden, rng, -7, -6);
    w2_ = random_fp8_matrix(kHidden, kInter, rng, -8, -6);
    x_ = bf16_rows(fp8_exact_activations(rows, kHidden, rng, -8, -6), rows, kHidden);
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
    for (int side : {kTest, kOracle}) {
      kernels::Backend& be = backend(side);
      w_[size_t(side)] = {be.upload_weight(weight_of(w1_)), be.upload_weight(weight_of(w2_)),
                          be.upload_weight(weight_of(w3_))};
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(kHidden); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const DeviceTensor x = upload_rows(b, x_, rows), out = poisoned_act(b, int64_t(rows.size()), kHidden);
    b.shared_expert({.hidden = kHidden, .inter = kInter}, w_[size_t(side)], x.t, out.t);
    std::vector<double> values;
    append_values(b, out.t, values);
    return values;
  }

 private:
  int32_t rows_;
  Fp8Matrix w1_, w3_, w2_;
  HostRows x_;
  std::array<kernels::ExpertWeights, 2> w_;
};

}  // namespace

KernelSpec fp4_experts_entry(const Binding& b) {
  KernelSpec s;
  s.name = "fp4_experts";
  s.description = "routed FP4 experts: gate/up + clamped SwiGLU x weight + FP8 h + down + ascending-id combine";
  for (const auto& shape : kRoutedShapes) {
    Shape sh{shape.name, shape.release};
    if (shape.release) sh.mixes = {RowMix::mix_random_routing, RowMix::mix_same_routing}, sh.max_rows = 6;
    s.shapes.push_back(sh);
  }
  s.mixes = {RowMix::mix_same_routing, RowMix::mix_disjoint_routing, RowMix::mix_random_routing, RowMix::mix_nonfinite};
  // Dominated by rounding h (the down projection's input) to e4m3: up to 2^-4 relative per element, averaging out
  // over the inputs of w2; bf16 gate/up and expert outputs add 2^-8 each.
  s.bound = 0.06;
  s.controls = b.controls("fp4_experts",
                          {"rows_read_pass_first_row", "scale_per_64", "no_clamp", "summed_in_routing_order"});
  s.make = [b](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kRoutedShapes)
      if (shape.name == sh.name) return std::make_unique<RoutedExpertsProblem>(b, sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

KernelSpec fp4_experts_add_entry(const Binding& b) {
  KernelSpec s;
  s.name = "fp4_experts_add";
  s.description = "routed FP4 experts, then an addend added and rounded to bf16 (the shared expert's output)";
  s.shapes = {{kRoutedShapes[0].name, false}};  // the add is the same at any width
  s.mixes = {RowMix::mix_same_routing, RowMix::mix_disjoint_routing, RowMix::mix_random_routing, RowMix::mix_nonfinite};
  // The output is about twice the routed one (its addend is the routed output), so the routed bound (0.06 of the
  // largest value) halves, and the sum's rounding adds 2^-9: 0.06 still covers it.
  s.bound = 0.06;
  s.controls = b.controls("fp4_experts", {"summed_in_routing_order"});
  // The CUDA combine's add, which has no CPU counterpart (the CPU runs routed_experts, then add).
  const std::string skipped = "fp4_experts_add" + b.control_suffix + "/addend_skipped";
  if (kernels::find_control(skipped)) s.controls.push_back(skipped);
  s.make = [b](const Shape&, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    return std::make_unique<RoutedExpertsProblem>(b, kRoutedShapes[0], mix, rows, seed, true);
  };
  return s;
}

KernelSpec shared_expert_entry(const Binding& b) {
  KernelSpec s;
  s.name = "shared_expert";
  s.description = "shared FP8 expert: FP8 linears w1/w3, unclamped SwiGLU, FP8 linear w2, bf16 out";
  s.shapes = {{"tiny 256x128", false}};
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  // As the routed experts: h rounded to e4m3 for w2 (up to 2^-4 relative per element) dominates.
  s.bound = 0.06;
  s.controls = b.controls("shared_expert", {"clamped"});
  s.make = [b](const Shape&, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    return std::make_unique<SharedExpertProblem>(b, mix, rows, seed);
  };
  return s;
}

}  // namespace plumb::contract
