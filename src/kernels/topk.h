// Top-k selection with plumb's deterministic tie rule, shared by the indexer and the router of every host backend:
// order by value descending, equal values by ascending index, NaN after every number (NaNs by ascending index).
// The margin (the last kept value minus the first dropped one) lets comparisons spot choices near a tie.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

namespace plumb::kernels {

template <typename T>
struct TopK {
  std::vector<int64_t> order;  // the min(k, n) selected indices, best first
  double margin = std::numeric_limits<double>::infinity();  // +inf when nothing is dropped; NaN if a NaN decides
};

template <typename T>
bool ranks_before(std::span<const T> v, int64_t a, int64_t b) {
  const bool nan_a = std::isnan(v[size_t(a)]), nan_b = std::isnan(v[size_t(b)]);
  if (nan_a != nan_b) return !nan_a;
  if (!nan_a && v[size_t(a)] != v[size_t(b)]) return v[size_t(a)] > v[size_t(b)];
  return a < b;
}

template <typename T>
TopK<T> top_k(std::span<const T> v, int64_t k) {
  const int64_t n = int64_t(v.size());
  TopK<T> out;
  const int64_t kept = std::min(k, n);
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), int64_t(0));
  const int64_t ranked = std::min(n, kept + 1);  // one more than kept, for the margin
  std::partial_sort(idx.begin(), idx.begin() + ranked, idx.end(),
                    [&](int64_t a, int64_t b) { return ranks_before(v, a, b); });
  out.order.assign(idx.begin(), idx.begin() + kept);
  if (n > kept && kept > 0)
    out.margin = double(v[size_t(idx[size_t(kept - 1)])]) - double(v[size_t(idx[size_t(kept)])]);
  return out;
}

}  // namespace plumb::kernels
