// Contract entries of the norms and the rotary embedding: RMSNorm (float32, bf16 out), the per-head q norm (bf16
// tensor ops), RoPE with both bases (1e4 plain, 1.6e5 with YaRN x16) and its inverse, at positions below 4096, and
// the q norm and RoPE as one op (Backend::head_rms_norm_rope). The oracle is the reference op in float64 (float64
// angles).
#include <cmath>
#include <memory>
#include <optional>

#include "base/number_formats.h"
#include "kernels/contract/entries.h"
#include "kernels/contract/entries/op_problem.h"

namespace plumb::contract {
namespace {

// ---- RMSNorm ----

class RmsNormProblem : public OpProblem {
 public:
  RmsNormProblem(const Binding& b, int64_t cols, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), cols_(cols), rows_(rows), x_(rows, cols) {
    InputRng rng(seed * 2053 + uint64_t(cols));
    weight_.resize(size_t(cols));
    for (auto& w : weight_) w = f32_to_bf16(float(1.0 + 0.3 * rng.normal()));
    // Row magnitudes from 3e-4 to 10: the smallest have mean squares near eps, where eps changes the result.
    for (int32_t r = 0; r < rows; ++r) {
      const double scale = std::pow(10.0, rng.uniform(-3.5, 1.0));
      for (int64_t c = 0; c < cols; ++c) x_.row(r)[c] = bf16_round(scale * rng.normal());
    }
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
    for (int side : {kTest, kOracle}) w_[size_t(side)] = backend(side).upload_weight(bf16_weight(weight_, 1, cols));
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(cols_); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const DeviceTensor x = upload_rows(b, x_, rows), y = poisoned_act(b, int64_t(rows.size()), cols_);
    b.rms_norm({1e-6}, w_[size_t(side)], x.t, y.t);
    std::vector<double> out;
    append_values(b, y.t, out);
    return out;
  }

 private:
  int64_t cols_;
  int32_t rows_;
  std::vector<uint16_t> weight_;
  HostRows x_;
  std::array<kernels::Weight, 2> w_;
};

// ---- per-head RMS norm of q ----

// rope: null for head_rms_norm alone; else head_rms_norm_rope with these parameters, at positions below 4096.
class HeadNormProblem : public OpProblem {
 public:
  static constexpr int64_t kHeads = 4, kHeadDim = 64;
  HeadNormProblem(const Binding& b, RowMix mix, int32_t rows, uint64_t seed, const kernels::RopeParams* rope = nullptr)
      : OpProblem(b), rows_(rows), x_(rows, kHeads * kHeadDim) {
    InputRng rng(seed * 3079 + 5);
    if (rope) {
      rope_ = *rope;
      for (int32_t r = 0; r < rows; ++r) positions_.push_back(r == 0 ? 0 : rng.uniform_int(1, 4095));
    }
    // Heads of different magnitudes, so a head normalized by another's RMS is visible.
    for (int32_t r = 0; r < rows; ++r)
      for (int64_t h = 0; h < kHeads; ++h) {
        const double scale = std::ldexp(rng.uniform(0.5, 1.0), rng.uniform_int(-6, 3));
        for (int64_t c = 0; c < kHeadDim; ++c) x_.row(r)[h * kHeadDim + c] = bf16_round(scale * rng.normal());
      }
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(kHeads * kHeadDim); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const DeviceTensor x = upload_rows(b, x_, rows);
    if (rope_) {
      std::vector<int64_t> positions;
      for (int32_t r : rows) positions.push_back(positions_[size_t(r)]);
      b.head_rms_norm_rope({kHeads, kHeadDim, 1e-6}, *rope_, positions, x.t);
    } else {
      b.head_rms_norm({kHeads, kHeadDim, 1e-6}, x.t);
    }
    std::vector<double> out;
    append_values(b, x.t, out);
    return out;
  }

 private:
  int32_t rows_;
  HostRows x_;
  std::optional<kernels::RopeParams> rope_;
  std::vector<int64_t> positions_;
};

// ---- RoPE ----

struct RopeShape {
  const char* name;
  kernels::RopeParams params;
};
const RopeShape kRopeShapes[] = {
    {"theta 1e4, 2 heads x 128, rope 64", {.head_dim = 128, .rope_dims = 64, .theta = 10000.0}},
    {"theta 1.6e5 YaRN x16, 2 heads x 128, rope 64",
     {.head_dim = 128, .rope_dims = 64, .theta = 160000.0, .yarn_factor = 16.0, .yarn_original = 65536}},
    {"inverse, theta 1.6e5 YaRN x16",
     {.head_dim = 128, .rope_dims = 64, .theta = 160000.0, .yarn_factor = 16.0, .yarn_original = 65536,
      .inverse = true}},
};

class RopeProblem : public OpProblem {
 public:
  RopeProblem(const Binding& b, const RopeShape& s, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), p_(s.params), rows_(rows) {
    InputRng rng(seed * 769 + uint64_t(s.params.theta));
    x_ = random_rows(rows, 2 * p_.head_dim, 1.0, rng);
    for (int32_t r = 0; r < rows; ++r) positions_.push_back(r == 0 ? 0 : rng.uniform_int(1, 4095));
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(x_.cols); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    std::vector<int64_t> positions;
    for (int32_t r : rows) positions.push_back(positions_[size_t(r)]);
    const DeviceTensor x = upload_rows(b, x_, rows);
    b.rope(p_, positions, x.t);
    std::vector<double> out;
    append_values(b, x.t, out);
    return out;
  }

 private:
  kernels::RopeParams p_;
  int32_t rows_;
  HostRows x_;
  std::vector<int64_t> positions_;
};

// The q norm's spec, alone (rope null) or with the rope after it (Backend::head_rms_norm_rope).
KernelSpec head_norm_spec(const Binding& b, const char* name, const char* shape, const char* description,
                          double bound, const std::optional<kernels::RopeParams>& rope) {
  KernelSpec s;
  s.name = name;
  s.description = description;
  s.shapes = {{shape, false}};
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.bound = bound;
  s.controls = b.controls("head_rms_norm", {"first_head_scale"});
  s.make = [b, rope](const Shape&, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    return std::make_unique<HeadNormProblem>(b, mix, rows, seed, rope ? &*rope : nullptr);
  };
  return s;
}

}  // namespace

KernelSpec rms_norm_entry(const Binding& b) {
  KernelSpec s;
  s.name = "rms_norm";
  s.description = "RMSNorm: float32 mean square, rsqrt(+eps), weight, bf16 out";
  s.shapes = {{"hidden 256", false}, {"kv_norm 512", false}};
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.bound = 1.0 / 256 + 1e-5;  // one bf16 rounding (2^-8 relative) after float32 arithmetic
  s.controls = b.controls("rms_norm", {"eps_dropped", "rows_read_neighbour_scale"});
  s.make = [b](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    return std::make_unique<RmsNormProblem>(b, shape.name == "hidden 256" ? 256 : 512, mix, rows, seed);
  };
  return s;
}

KernelSpec head_rms_norm_entry(const Binding& b) {
  // Five bf16 roundings (squares, mean, + eps, rsqrt, product), 2^-8 relative each, the first three halved by
  // the square root: 3.5 x 2^-8.
  return head_norm_spec(b, "head_rms_norm", "4 heads x 64", "per-head RMS norm of q without weight, in bf16 tensor ops",
                        1.0 / 64, std::nullopt);
}

KernelSpec head_rms_norm_rope_entry(const Binding& b) {
  // The norm's error (head_rms_norm: 2^-6 of the head's largest value) rotated with its pair partner's (at most
  // sqrt(2) x 2^-6), the angles' (5e-4, as rope) and one more bf16 rounding (2^-9): 0.025, under 2^-5.
  KernelSpec s = head_norm_spec(
      b, "head_rms_norm_rope", "4 heads x 64, rope 32",
      "per-head q norm, then RoPE (theta 1.6e5 + YaRN x16) on each head's last 32 dims, as one op", 1.0 / 32,
      kernels::RopeParams{.head_dim = HeadNormProblem::kHeadDim,
                          .rope_dims = 32,
                          .theta = 160000.0,
                          .yarn_factor = 16.0,
                          .yarn_original = 65536});
  for (const std::string& c : b.controls("rope", {"pair_swapped", "yarn_ignored"})) s.controls.push_back(c);
  return s;
}

KernelSpec rope_entry(const Binding& b) {
  KernelSpec s;
  s.name = "rope";
  s.description = "RoPE on the last 64 dims of each head: theta 1e4, theta 1.6e5 + YaRN, inverse; bf16 out";
  for (const auto& shape : kRopeShapes) s.shapes.push_back({shape.name, false});
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  // float32 angles at positions below 4096 are off by under 4096 * 2^-23 rad (the frequency's and the product's
  // rounding): 5e-4 of a pair's norm; one bf16 rounding adds 2^-8.
  s.bound = 1.0 / 128;
  s.controls = b.controls("rope", {"pair_swapped", "inverse_ignored", "yarn_ignored"});
  s.make = [b](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kRopeShapes)
      if (shape.name == sh.name) return std::make_unique<RopeProblem>(b, sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace plumb::contract
