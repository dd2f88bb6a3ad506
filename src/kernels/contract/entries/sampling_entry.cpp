// Contract entry of the sampler (engine::sample_token, on the host for every backend): greedy with ties to the
// lowest id; softmax at a temperature with top-k, min-p and top-p filters; an inverse-CDF draw of
// keyed_uniform(seed, position) over the ids in ascending order (no filter) or over the candidates by logit
// descending, id ascending (any filter). The oracle is an independent long double computation of that
// specification; token ids must be equal. The only places where they may legitimately differ are a draw, a top-p
// cut or a min-p threshold within rounding of a boundary: rows are drawn again (another position, or other logits)
// until every such boundary is more than 1e-9 of the total mass away.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

#include "base/error.h"
#include "base/rng.h"
#include "engine/sampling.h"
#include "kernels/contract/entries.h"
#include "kernels/contract/inputs.h"

namespace plumb::contract {
namespace {

using Real = long double;

struct Drawn {
  int32_t token = -1;
  Real clearance = 1;  // the smallest distance of a boundary from the draw, the top-p cut or the min-p floor
};

// The specification above, in long double.
Drawn oracle_sample(const std::vector<float>& logits, const engine::SamplingParams& p, uint64_t seed, int64_t position) {
  const int32_t vocab = int32_t(logits.size());
  std::vector<int32_t> ids;
  for (int32_t i = 0; i < vocab; ++i)
    if (!std::isnan(logits[size_t(i)])) ids.push_back(i);
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
    return logits[size_t(a)] != logits[size_t(b)] ? logits[size_t(a)] > logits[size_t(b)] : a < b;
  });
  if (p.temperature == 0) return {ids.front(), 1};
  const bool filtered = p.top_k > 0 || p.top_p < 1 || p.min_p > 0;
  size_t keep = ids.size();
  if (p.top_k > 0) keep = std::min(keep, size_t(p.top_k));
  const Real top = Real(logits[size_t(ids.front())]) / Real(p.temperature);
  std::vector<Real> prob(keep);
  for (size_t i = 0; i < keep; ++i) prob[i] = std::exp(Real(logits[size_t(ids[i])]) / Real(p.temperature) - top);
  Real clearance = 1;
  if (p.min_p > 0) {
    const Real floor = Real(p.min_p) * prob[0];
    size_t n = 1;
    while (n < keep && prob[n] >= floor) ++n;
    for (size_t i = 1; i < keep; ++i) clearance = std::min(clearance, std::fabs(prob[i] - floor) / prob[0]);
    keep = n;
  }
  if (p.top_p < 1) {
    const Real total = std::accumulate(prob.begin(), prob.begin() + keep, Real(0));
    Real cum = 0;
    size_t n = 0;
    while (n < keep) {
      cum += prob[n++];
      clearance = std::min(clearance, std::fabs(cum - Real(p.top_p) * total) / total);
      if (cum >= Real(p.top_p) * total) break;
    }
    keep = n;
  }
  // The draw over the kept candidates: by candidate order when filtered, by ascending id otherwise.
  std::vector<int32_t> order(ids.begin(), ids.begin() + keep);
  std::vector<Real> mass(prob.begin(), prob.begin() + keep);
  if (!filtered) {
    std::vector<size_t> by_id(keep);
    std::iota(by_id.begin(), by_id.end(), size_t(0));
    std::sort(by_id.begin(), by_id.end(), [&](size_t a, size_t b) { return order[a] < order[b]; });
    std::vector<int32_t> o2;
    std::vector<Real> m2;
    for (size_t i : by_id) o2.push_back(order[i]), m2.push_back(mass[i]);
    order = o2, mass = m2;
  }
  const Real total = std::accumulate(mass.begin(), mass.end(), Real(0));
  const Real target = Real(keyed_uniform(seed, uint64_t(position))) * total;
  Real cum = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (mass[i] == 0) continue;
    cum += mass[i];
    clearance = std::min(clearance, std::fabs(cum - target) / total);
    if (target < cum) return {order[i], clearance};
  }
  return {order.back(), clearance};
}

struct SamplingShape {
  const char* name;
  int32_t vocab;
  bool release;
};
constexpr SamplingShape kShapes[] = {{"vocab 512", 512, false}, {"release vocab 129280", 129280, true}};

class SamplingProblem : public Problem {
 public:
  SamplingProblem(const SamplingShape& s, RowMix mix, int32_t rows, uint64_t seed) : rows_(rows) {
    InputRng rng(seed * 7907 + uint64_t(s.vocab));
    for (int32_t r = 0; r < rows; ++r) {
      Row row;
      row.seed = rng.bits();
      row.position = rng.uniform_int(0, 100000);
      switch (r % 6) {
        case 0: row.p.temperature = 0; break;
        case 1: row.p.temperature = 1.0; break;
        case 2: row.p.temperature = 0.7, row.p.top_k = 20; break;
        case 3: row.p.temperature = 1.3, row.p.top_p = 0.9; break;
        case 4: row.p.temperature = 1.0, row.p.min_p = 0.05; break;
        default: row.p.temperature = 0.8, row.p.top_k = 50, row.p.top_p = 0.95, row.p.min_p = 0.02; break;
      }
      for (int tries = 0;; ++tries) {
        if (tries > 1000) fail("sampling contract: no row clear of boundaries found for row {}", r);
        draw_logits(row, s.vocab, r, mix, rng);
        if (oracle_sample(row.logits, row.p, row.seed, row.position).clearance > 1e-9) break;
        row.position = rng.uniform_int(0, 100000);
      }
      rows_data_.push_back(std::move(row));
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return 1; }

  void run(std::span<const int32_t> subset, int32_t, std::span<double> out) override {
    for (size_t i = 0; i < subset.size(); ++i) {
      const Row& row = rows_data_[size_t(subset[i])];
      out[i] = double(engine::sample_token(row.logits, row.p, row.seed, row.position));
    }
  }
  void oracle(int32_t r, std::span<double> out) override {
    const Row& row = rows_data_[size_t(r)];
    out[0] = double(oracle_sample(row.logits, row.p, row.seed, row.position).token);
  }

 private:
  struct Row {
    std::vector<float> logits;
    engine::SamplingParams p;
    uint64_t seed = 0;
    int64_t position = 0;
  };

  static void draw_logits(Row& row, int32_t vocab, int32_t r, RowMix mix, InputRng& rng) {
    row.logits.assign(size_t(vocab), 0.0f);
    for (auto& l : row.logits) l = float(2.5 * rng.normal());
    // Exact ties where the tie rule decides: the greedy maximum, and the top-k boundary.
    std::vector<int32_t> ids(static_cast<size_t>(vocab));
    std::iota(ids.begin(), ids.end(), 0);
    std::partial_sort(ids.begin(), ids.begin() + 60, ids.end(),
                      [&](int32_t a, int32_t b) { return row.logits[size_t(a)] > row.logits[size_t(b)]; });
    if (row.p.temperature == 0) row.logits[size_t(std::max(ids[0], ids[1]))] = row.logits[size_t(std::min(ids[0], ids[1]))] =
        row.logits[size_t(ids[0])];
    if (row.p.top_k > 0) row.logits[size_t(ids[size_t(row.p.top_k)])] = row.logits[size_t(ids[size_t(row.p.top_k - 1)])];
    // NaN logits are never sampled, -inf ones have probability 0.
    if (mix == RowMix::mix_nonfinite && (r == 1 || r == 2)) {
      for (int i = 0; i < 5; ++i)
        row.logits[size_t(ids[size_t(1 + 7 * i)])] = r == 1 ? std::nanf("") : -std::numeric_limits<float>::infinity();
    }
  }

  int32_t rows_;
  std::vector<Row> rows_data_;
};

}  // namespace

KernelSpec sampling_entry() {
  KernelSpec s;
  s.name = "sampling";
  s.description = "token sampling: greedy, temperature, top-k, top-p, min-p, keyed by (seed, position) (exact ids)";
  for (const auto& shape : kShapes) {
    Shape sh{shape.name, shape.release};
    if (shape.release) sh.mixes = {RowMix::mix_random}, sh.max_rows = 6;
    s.shapes.push_back(sh);
  }
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.bound = 0;
  s.controls = {"sampling/greedy_ties_to_highest_id", "sampling/temperature_ignored", "sampling/draw_keyed_by_call"};
  s.make = [](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kShapes)
      if (shape.name == sh.name) return std::make_unique<SamplingProblem>(sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace plumb::contract
