// Contract entry of the lightning indexer (Backend::indexer_topk): score of index row t for a query row =
// sum_h w_h relu(q_h . I_t) over the slot's visible rows (t < (position + 1) / 4), then the top-k by score (ties by
// ascending row, NaN last), -1 past the visible rows. The selected rows are compared exactly with the float64
// reference indexer, on inputs built so that rounding cannot move a choice:
//   - index row t carries a signal v_t in dimension 0 (either sign; the slot's |v_t| are distinct steps of a grid
//     0.5 * 2^(i/6), so signals of one sign are 12% apart) or is a "zero row" whose dimension 1 makes every head's
//     dot product clearly negative (score exactly 0: ties broken by index);
//   - query heads carry a sign c_h in dimension 0 (both signs among the heads) and -1 in dimension 1, so positive
//     and negative signals rank by different head subsets and the head weights decide how they interleave (one
//     offset on the grid for every pair, so a query is clear of ties about half the time);
//   - every other dimension holds noise of 1e-2, and a query is drawn again until, in float64, every head's dot
//     product is at least 0.05 from zero and consecutive scores among its first top_k + 1 are exact ties or 2^-5
//     apart (the release rounds scores through bf16 three times: under 2^-7 relative).
#include <algorithm>
#include <cmath>
#include <memory>

#include "base/error.h"
#include "kernels/contract/entries.h"
#include "kernels/contract/entries/op_problem.h"
#include "kernels/topk.h"

namespace plumb::contract {
namespace {

constexpr int64_t kSlots = 3, kRatio = 4;

struct IndexerShape {
  const char* name;
  int64_t heads, head_dim, topk, rows_per_slot;
};
constexpr IndexerShape kShapes[] = {
    {"4 heads x 32, top 4 of 24", 4, 32, 4, 24},
    {"64 heads x 128, top 16 of 64", 64, 128, 16, 64},
};

class IndexerProblem : public OpProblem {
 public:
  IndexerProblem(const Binding& b, const IndexerShape& s, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), rows_(rows), rng_(seed * 5227 + uint64_t(s.heads)),
        keys_(kSlots * s.rows_per_slot, s.head_dim), q_(rows, s.heads * s.head_dim), w_(rows, s.heads) {
    for (int64_t slot = 0; slot < kSlots; ++slot) {
      std::vector<int32_t> grid = first_rows(int32_t(s.rows_per_slot));
      for (size_t i = 0; i < grid.size(); ++i) std::swap(grid[i], grid[size_t(rng_.uniform_int(int32_t(i), int32_t(grid.size() - 1)))]);
      for (int64_t t = 0; t < s.rows_per_slot; ++t) {
        double* k = keys_.row(slot * s.rows_per_slot + t);
        for (int64_t c = 2; c < s.head_dim; ++c) k[c] = bf16_round(0.01 * rng_.normal());
        if (rng_.uniform_int(0, 3) == 0) {
          k[1] = 4.0;  // a zero row
        } else {
          k[0] = bf16_round(0.5 * std::exp2(grid[size_t(t)] / 6.0) * (rng_.bits() % 2 ? 1 : -1));
        }
      }
    }
    const int64_t last_position = kRatio * s.rows_per_slot - 1;
    const int64_t start = rng_.uniform_int(0, int32_t(last_position - rows + 1));
    for (int32_t r = 0; r < rows; ++r) {
      if (mix == RowMix::mix_multi_slot) {
        meta_.push_back({r % int32_t(kSlots), rng_.uniform_int(0, int32_t(last_position))});
      } else {
        meta_.push_back({0, start + r});  // consecutive positions of one slot, as a prefill chunk
      }
      int tries = 0;
      do {
        if (++tries > 1000) fail("indexer contract: no tie-free query found for row {}", r);
        draw_query(r);
        if (mix == RowMix::mix_nonfinite && r == 1) q_.row(r)[3] = std::nan("");
        if (mix == RowMix::mix_nonfinite && r == 2) q_.row(r)[s.head_dim + 5] = INFINITY;
      } while (!clear_ranking(r));
    }
    for (int side : {kTest, kOracle}) keys_dev_[size_t(side)] = upload_all(backend(side), keys_);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(s_.topk); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    std::vector<kernels::TokenRow> meta;
    for (int32_t r : rows) meta.push_back(meta_[size_t(r)]);
    const DeviceTensor q = upload_rows(b, q_, rows), w = upload_rows(b, w_, rows);
    const DeviceTensor selected = poisoned_i32(b, int64_t(rows.size()), s_.topk);
    b.indexer_topk({.heads = s_.heads, .head_dim = s_.head_dim, .topk = s_.topk, .ratio = kRatio,
                    .rows_per_slot = s_.rows_per_slot},
                   q.t, w.t, keys_dev_[size_t(side)].t, meta, selected.t, nullptr);
    std::vector<double> out;
    append_values(b, selected.t, out);
    return out;
  }

 private:
  void draw_query(int32_t r) {
    double* q = q_.row(r);
    bool positive = false, negative = false;
    for (int64_t h = 0; h < s_.heads; ++h) {
      double* qh = q + h * s_.head_dim;
      const bool up = h == 0 ? true : h == 1 ? false : rng_.bits() % 2 == 0;
      positive |= up, negative |= !up;
      qh[0] = bf16_round(rng_.uniform(0.5, 1.5) * (up ? 1 : -1));
      qh[1] = -1.0;
      for (int64_t c = 2; c < s_.head_dim; ++c) qh[c] = bf16_round(0.01 * rng_.normal());
      w_.row(r)[h] = bf16_round(rng_.uniform(0.1, 1.0));
    }
    PLUMB_CHECK(positive && negative);
  }

  // The float64 scores of row r's visible index rows, with relu keeping NaN.
  std::vector<double> scores(int32_t r, bool& near_zero) const {
    const kernels::TokenRow row = meta_[size_t(r)];
    const int64_t visible = (row.position + 1) / kRatio;
    std::vector<double> out(static_cast<size_t>(visible));
    near_zero = false;
    for (int64_t t = 0; t < visible; ++t) {
      const double* k = keys_.row(row.slot * s_.rows_per_slot + t);
      double total = 0;
      for (int64_t h = 0; h < s_.heads; ++h) {
        const double* qh = q_.row(r) + h * s_.head_dim;
        double dot = 0;
        for (int64_t c = 0; c < s_.head_dim; ++c) dot += qh[c] * k[c];
        near_zero |= std::fabs(dot) < 0.05;
        total += w_.row(r)[h] * (std::isnan(dot) ? dot : std::max(dot, 0.0));
      }
      out[size_t(t)] = total;
    }
    return out;
  }

  bool clear_ranking(int32_t r) const {
    bool near_zero = false;
    const std::vector<double> s = scores(r, near_zero);
    if (near_zero) return false;
    const kernels::TopK<double> top = kernels::top_k(std::span<const double>(s), s_.topk + 1);
    for (size_t i = 0; i + 1 < top.order.size(); ++i) {
      const double a = s[size_t(top.order[i])], c = s[size_t(top.order[i + 1])];
      if (a == c || (std::isnan(a) && std::isnan(c)) || !std::isfinite(a - c)) continue;  // exact ties, infinities
      if (a - c < 0x1p-5 * std::fabs(a)) return false;
    }
    return true;
  }

  IndexerShape s_;
  int32_t rows_;
  InputRng rng_;
  HostRows keys_, q_, w_;
  std::vector<kernels::TokenRow> meta_;
  std::array<DeviceTensor, 2> keys_dev_;
};

}  // namespace

KernelSpec indexer_entry(const Binding& b) {
  KernelSpec s;
  s.name = "indexer_topk";
  s.description = "lightning indexer: sum_h w_h relu(q_h . I_t) over visible rows, top-k (exact selection)";
  for (const auto& shape : kShapes) s.shapes.push_back({shape.name, false});
  s.mixes = {RowMix::mix_random, RowMix::mix_multi_slot, RowMix::mix_nonfinite};
  s.bound = 0;
  s.controls = b.controls("indexer", {"relu_dropped", "sees_next_row", "rows_read_neighbour_weights"});
  s.make = [b](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kShapes)
      if (shape.name == sh.name) return std::make_unique<IndexerProblem>(b, sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace plumb::contract
