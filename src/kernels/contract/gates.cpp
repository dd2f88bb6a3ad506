// Gates 1-4 over one kernel spec (contract.h says what each gate checks).
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "base/error.h"
#include "kernels/contract/contract.h"
#include "kernels/control.h"

namespace plumb::contract {
namespace {

struct Checker {
  const KernelSpec& spec;
  GateOutcome& out;
  std::string where;  // shape / mix context for messages

  void fail_gate(int gate, const std::string& what) {
    if (out.pass[gate - 1] && out.first_failure.empty()) out.first_failure = fmt::format("gate {}: {} ({})", gate, what, where);
    out.pass[gate - 1] = false;
  }

  std::vector<double> launch(Problem& p, std::span<const int32_t> subset, int32_t variant) {
    std::vector<double> buf(subset.size() * size_t(p.width()), poison());
    p.run(subset, variant, buf);
    return buf;
  }

  void check_problem(Problem& p, bool release) {
    const int32_t rows = p.rows(), width = p.width();
    std::vector<int32_t> all(static_cast<size_t>(rows));
    std::iota(all.begin(), all.end(), 0);

    // Oracle and each row alone.
    std::vector<std::vector<double>> oracle(static_cast<size_t>(rows)), alone(static_cast<size_t>(rows));
    for (int32_t r = 0; r < rows; ++r) {
      oracle[size_t(r)].assign(size_t(width), 0.0);
      p.oracle(r, oracle[size_t(r)]);
      const int32_t one[1] = {r};
      alone[size_t(r)] = launch(p, one, 0);
    }
    const auto full = launch(p, all, 0);

    // Gate 1: coverage and non-finite propagation.
    for (int32_t r = 0; r < rows; ++r) {
      for (int32_t c = 0; c < width; ++c) {
        const double got = full[size_t(r) * size_t(width) + size_t(c)], want = oracle[size_t(r)][size_t(c)];
        if (is_poison(got)) {
          fail_gate(1, fmt::format("row {} {} never written", r, p.column_name(c)));
        } else if (std::isfinite(want) != std::isfinite(got)) {
          // Non-finite must stay non-finite; quantized kernels may turn an Inf into NaN (the release's scales do).
          fail_gate(1, fmt::format("row {} {}: got {} where the oracle has {}", r, p.column_name(c), got, want));
        }
      }
    }
    // Gate 2: accuracy per row (rows whose oracle is entirely finite).
    for (int32_t r = 0; r < rows; ++r) {
      const auto& want = oracle[size_t(r)];
      bool finite = true;
      double scale = 0;
      for (double w : want) {
        finite = finite && std::isfinite(w);
        scale = std::max(scale, std::fabs(w));
      }
      if (!finite) continue;
      double worst = 0;
      int32_t worst_col = 0;
      for (int32_t c = 0; c < width; ++c) {
        const double got = full[size_t(r) * size_t(width) + size_t(c)];
        const double err = std::isfinite(got) ? std::fabs(got - want[size_t(c)]) : std::numeric_limits<double>::infinity();
        if (err > worst) {
          worst = err;
          worst_col = c;
        }
      }
      const double rel = scale > 0 ? worst / scale : worst;
      if (rel > out.worst_error) {
        out.worst_error = rel;
        out.worst_where = fmt::format("{}, row {}, {}", where, r, p.column_name(worst_col));
      }
      if (!(rel <= spec.bound)) fail_gate(2, fmt::format("row {} {}: error {:.3g} of max |oracle| {:.3g} > bound {:.3g}",
                                                         r, p.column_name(worst_col), rel, scale, spec.bound));
    }
    // Gate 3: every row bit-equal to itself alone, across row counts, orders, subsets and variants.
    auto same_as_alone = [&](std::span<const int32_t> subset, const std::vector<double>& got, const std::string& what) {
      for (size_t i = 0; i < subset.size(); ++i) {
        const int32_t r = subset[i];
        if (std::memcmp(got.data() + i * size_t(width), alone[size_t(r)].data(), size_t(width) * sizeof(double)) != 0) {
          fail_gate(3, fmt::format("row {} in {} differs from row {} alone", r, what, r));
          return;
        }
      }
    };
    same_as_alone(all, full, fmt::format("a launch of {} rows", rows));
    std::vector<int32_t> counts;
    for (int32_t n = 1; n <= rows; ++n)
      if (!release || n == 1 || n == 2 || n == 3 || n == 5 || n == 8 || n == rows) counts.push_back(n);
    for (int32_t variant = 0; variant < p.variants(); ++variant) {
      for (int32_t n : counts) {
        std::span<const int32_t> first(all.data(), size_t(n));
        same_as_alone(first, launch(p, first, variant),
                      fmt::format("the first {} rows ({})", n, p.variant_name(variant)));
      }
    }
    std::vector<int32_t> reversed(all.rbegin(), all.rend());
    same_as_alone(reversed, launch(p, reversed, 0), "all rows in reverse order");
    std::mt19937 rng{static_cast<uint32_t>(rows * 7919 + width)};
    for (int trial = 0; trial < (release ? 1 : 3); ++trial) {
      std::vector<int32_t> subset = all;
      std::shuffle(subset.begin(), subset.end(), rng);
      subset.resize(size_t(1 + rng() % uint32_t(rows)));
      same_as_alone(subset, launch(p, subset, 0), fmt::format("a shuffled subset of {} rows", subset.size()));
    }
    // Gate 4: determinism.
    const auto again = launch(p, all, 0);
    if (std::memcmp(again.data(), full.data(), full.size() * sizeof(double)) != 0)
      fail_gate(4, "two runs of the same launch differ");
  }
};

}  // namespace

// A NaN with a payload no arithmetic produces.
double poison() {
  const uint64_t bits = 0x7ff4dead0bad0000ull;
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
bool is_poison(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return bits == 0x7ff4dead0bad0000ull;
}

const char* row_mix_name(RowMix m) {
  switch (m) {
    case RowMix::mix_random: return "random rows";
    case RowMix::mix_same_routing: return "same routing";
    case RowMix::mix_disjoint_routing: return "disjoint routing";
    case RowMix::mix_random_routing: return "random routing";
    case RowMix::mix_multi_slot: return "slots x rows";
    case RowMix::mix_nonfinite: return "NaN/Inf rows";
  }
  return "?";
}

GateOutcome run_gates(const KernelSpec& spec, uint64_t seed, bool include_release_shapes) {
  GateOutcome out;
  for (const auto& shape : spec.shapes) {
    if (shape.release && !include_release_shapes) continue;
    const int32_t rows = shape.max_rows > 0 ? shape.max_rows : spec.max_rows;
    for (RowMix mix : shape.mixes.empty() ? spec.mixes : shape.mixes) {
      Checker checker{spec, out, fmt::format("{}, {}", shape.name, row_mix_name(mix))};
      try {
        auto problem = spec.make(shape, mix, rows, seed);
        checker.check_problem(*problem, shape.release);
      } catch (const std::exception& e) {
        checker.fail_gate(1, fmt::format("the kernel threw: {}", e.what()));
      }
    }
  }
  return out;
}

}  // namespace plumb::contract
