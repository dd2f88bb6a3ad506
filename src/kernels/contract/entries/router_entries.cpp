// Contract entries of the router (Backend::route): scores sqrt(softplus(gate x)), experts chosen as the top-k of
// score + bias (or read from the hash table tid2eid[token]), weights s_e / sum s * route_scale. The chosen ids are
// checked exactly (router_ids) and the weights against the float64 reference router (router_weights). Inputs are
// drawn again for any row whose float64 score + bias ranking has two of its first top_k + 1 values within 1e-3 of
// each other, so float32 rounding cannot change a choice or its order.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "base/number_formats.h"
#include "kernels/contract/entries.h"
#include "kernels/contract/entries/op_problem.h"

namespace plumb::contract {
namespace {

constexpr double kRouteScale = 1.5;

struct RouterShape {
  const char* name;
  int64_t experts, topk, hidden, vocab;
  bool hash, release;
};
constexpr RouterShape kShapes[] = {
    {"score-routed 16 experts top4", 16, 4, 256, 64, false, false},
    {"hash-routed 16 experts top4", 16, 4, 256, 64, true, false},
    {"release 256 experts top6", 256, 6, 4096, 64, false, true},
};

enum class Part { ids, weights };

class RouterProblem : public OpProblem {
 public:
  RouterProblem(const Binding& b, const RouterShape& s, Part part, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), part_(part), rows_(rows) {
    InputRng rng(seed * 4099 + uint64_t(s.experts + s.hash));
    gate_ = random_bf16(size_t(s.experts * s.hidden), 2.0 / std::sqrt(double(s.hidden)), rng);
    bias_ = random_f32(size_t(s.experts), 0.5, rng);
    for (int64_t t = 0; t < s.vocab; ++t) {
      std::vector<int64_t> all(size_t(s.experts));
      std::iota(all.begin(), all.end(), int64_t(0));
      for (int64_t i = 0; i < s.topk; ++i) {
        std::swap(all[size_t(i)], all[size_t(rng.uniform_int(int32_t(i), int32_t(s.experts - 1)))]);
        tid2eid_.push_back(all[size_t(i)]);
      }
    }
    x_ = HostRows(rows, s.hidden);
    for (int32_t r = 0; r < rows; ++r) {
      tokens_.push_back(rng.uniform_int(0, int32_t(s.vocab - 1)));
      do {
        for (int64_t c = 0; c < s.hidden; ++c) x_.row(r)[c] = bf16_round(rng.normal());
      } while (!s.hash && !clear_ranking(x_.row(r)));
    }
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
    for (int side : {kTest, kOracle}) {
      kernels::Backend& be = backend(side);
      w_[size_t(side)] = {be.upload_weight(bf16_weight(gate_, s.experts, s.hidden)),
                          be.upload_weight(f32_weight(bias_, 1, s.experts)),
                          be.upload_weight(i64_weight(tid2eid_, s.vocab, s.topk))};
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(s_.topk); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const int64_t m = int64_t(rows.size());
    std::vector<int32_t> tokens;
    for (int32_t r : rows) tokens.push_back(tokens_[size_t(r)]);
    const DeviceTensor x = upload_rows(b, x_, rows), ids = poisoned_i32(b, m, s_.topk), weights = poisoned_act(b, m, s_.topk);
    b.route({.experts = s_.experts, .topk = s_.topk, .route_scale = kRouteScale, .hash = s_.hash}, w_[size_t(side)], x.t,
            tokens, ids.t, weights.t, nullptr);
    std::vector<double> out;
    append_values(b, part_ == Part::ids ? ids.t : weights.t, out);
    return out;
  }

 private:
  // Whether the first top_k + 1 values of the float64 score + bias ranking are at least 1e-3 apart.
  bool clear_ranking(const double* x) const {
    std::vector<double> biased(size_t(s_.experts));
    for (int64_t e = 0; e < s_.experts; ++e) {
      double logit = 0;
      for (int64_t c = 0; c < s_.hidden; ++c) logit += double(bf16_to_f32(gate_[size_t(e * s_.hidden + c)])) * x[c];
      const double softplus = logit > 20 ? logit : std::log1p(std::exp(logit));
      biased[size_t(e)] = std::sqrt(softplus) + double(bias_[size_t(e)]);
    }
    std::sort(biased.begin(), biased.end(), std::greater<>());
    for (int64_t i = 0; i < s_.topk && i + 1 < s_.experts; ++i)
      if (biased[size_t(i)] - biased[size_t(i + 1)] < 1e-3) return false;
    return true;
  }

  RouterShape s_;
  Part part_;
  int32_t rows_;
  std::vector<uint16_t> gate_;
  std::vector<float> bias_;
  std::vector<int64_t> tid2eid_;
  std::vector<int32_t> tokens_;
  HostRows x_;
  std::array<kernels::RouterWeights, 2> w_;
};

KernelSpec router_spec(const Binding& b, Part part) {
  KernelSpec s;
  for (const auto& shape : kShapes) s.shapes.push_back({shape.name, shape.release});
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.make = [b, part](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kShapes)
      if (shape.name == sh.name) return std::make_unique<RouterProblem>(b, sh, part, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace

KernelSpec router_ids_entry(const Binding& b) {
  KernelSpec s = router_spec(b, Part::ids);
  s.name = "router_ids";
  s.description = "router choice: top-k of sqrt(softplus(gate x)) + bias, or the hash table (exact)";
  s.bound = 0;
  s.controls = b.controls("router", {"bias_ignored_in_choice", "hash_reads_next_token"});
  return s;
}

KernelSpec router_weights_entry(const Binding& b) {
  KernelSpec s = router_spec(b, Part::weights);
  s.name = "router_weights";
  s.description = "router weights: sqrt(softplus) scores of the chosen experts, normalized, x route_scale";
  // float32 logits (sums of exact bf16 products over the hidden size), softplus, sqrt and the normalization: a few
  // float32 roundings of O(1) values.
  s.bound = 1e-5;
  s.controls = b.controls("router", {"bias_in_weights", "route_scale_skipped"});
  return s;
}

}  // namespace plumb::contract
