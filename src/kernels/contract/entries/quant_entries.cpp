// Contract entry: activation quantization as the release simulates it in place (Backend::quant_sim): blocks of
// FP8 e4m3 (64 values, the KV nope dims) or FP4 e2m1 (32 values, the indexer) with a power-of-two scale
// 2^ceil(log2(max(amax, floor) / fmax)), round to nearest even, back to bf16. The reference backend leaves values
// unrounded, so this entry's oracle is an exact float64 computation of the rounding (exact_rounding.h), and the
// kernel must match it bit for bit. Inputs hold the hard cases: exact midpoints of the grids, blocks whose maximum sits on a power of two,
// blocks below the scale floor, all-zero blocks, and columns outside the rounded range.
#include <algorithm>
#include <cmath>
#include <memory>

#include "kernels/contract/entries.h"
#include "kernels/contract/entries/exact_rounding.h"
#include "kernels/contract/entries/op_problem.h"

namespace plumb::contract {
namespace {

struct QuantShape {
  const char* name;
  kernels::SimFormat format;
  int64_t block, col_begin, col_end, cols;
};
constexpr QuantShape kShapes[] = {
    {"fp8 blocks of 64 on cols 0-447 of 512", kernels::SimFormat::fp8_e4m3, 64, 0, 448, 512},
    {"fp4 blocks of 32 on 256", kernels::SimFormat::fp4_e2m1, 32, 0, 256, 256},
};

class QuantProblem : public OpProblem {
 public:
  QuantProblem(const Binding& b, const QuantShape& s, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), rows_(rows), x_(rows, s.cols) {
    InputRng rng(seed * 31337 + uint64_t(s.block));
    const bool fp8 = s.format == kernels::SimFormat::fp8_e4m3;
    const double fmax = fp8 ? 448.0 : 6.0;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t b0 = 0; b0 < s.cols; b0 += s.block) {
        double* v = x_.row(r) + b0;
        const int kind = rng.uniform_int(0, 9);
        const int e = rng.uniform_int(-24, 6);
        for (int64_t i = 0; i < s.block; ++i) v[i] = bf16_round(std::ldexp(rng.normal(), e));
        if (kind == 0) {
          std::fill(v, v + s.block, 0.0);
        } else if (kind == 1) {
          for (int64_t i = 0; i < s.block; ++i) v[i] = bf16_round(std::ldexp(rng.normal(), -22));  // under the floor
        } else if (kind <= 4) {
          // The maximum is fmax * 2^e exactly (scale 2^e); the other values sit on midpoints of the grid.
          v[0] = std::ldexp(fmax, e) * (rng.bits() % 2 ? 1 : -1);
          const double fp8_mid[] = {1.0625, 1.1875, 1.5625, 1.9375};
          const double fp4_mid[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};
          for (int64_t i = 1; i < s.block; ++i) {
            const double m = fp8 ? std::ldexp(fp8_mid[rng.uniform_int(0, 3)], rng.uniform_int(-5, 7))
                                 : fp4_mid[rng.uniform_int(0, 6)];
            v[i] = std::ldexp(m, e) * (rng.bits() % 2 ? 1 : -1);
          }
        }
      }
    }
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(s_.cols); }

  void oracle(int32_t row, std::span<double> out) override {
    std::copy(x_.row(row), x_.row(row) + s_.cols, out.begin());
    round_blocks_exactly(s_.format, out.data() + s_.col_begin, s_.col_end - s_.col_begin, s_.block);
  }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const DeviceTensor x = upload_rows(b, x_, rows);
    b.quant_sim({s_.format, s_.block, s_.col_begin, s_.col_end}, x.t);
    std::vector<double> out;
    append_values(b, x.t, out);
    return out;
  }

 private:
  QuantShape s_;
  int32_t rows_;
  HostRows x_;
};

}  // namespace

KernelSpec act_quant_entry(const Binding& b) {
  KernelSpec s;
  s.name = "act_quant";
  s.description = "FP8 (64) / FP4 (32) block rounding with pow2 scales, ties to even, bf16 out (exact)";
  for (const auto& shape : kShapes) s.shapes.push_back({shape.name, false});
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.bound = 0;  // every result is an e4m3 / e2m1 value times a power of two: exactly the oracle's
  s.controls = b.controls("act_quant", {"scale_exponent_off_by_one", "scale_per_64"});
  s.make = [b](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kShapes)
      if (shape.name == sh.name) return std::make_unique<QuantProblem>(b, sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace plumb::contract
