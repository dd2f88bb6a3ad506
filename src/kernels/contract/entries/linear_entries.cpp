// Contract entries of Backend::linear: the FP8 linear (activations quantized per 128 along K, FP8 weights with
// 128x128 scales, promotion per block, bf16 output) and the dense linear without activation quantization (bf16
// weights with an output scale, as the indexer's head weights; grouped FP8 weights, as wo_a). The oracle is the
// reference linear: weights decoded exactly, float64 sums, no rounding. FP8 inputs are either exactly representable
// after the per-128 quantization, or arbitrary bf16 values that the oracle first rounds exactly as the release's
// quantization must (exact_rounding.h): either way only the sums and the output rounding separate kernel and oracle.
#include <cmath>
#include <memory>

#include "kernels/contract/entries.h"
#include "kernels/contract/entries/exact_rounding.h"
#include "kernels/contract/entries/op_problem.h"

namespace plumb::contract {
namespace {

struct LinearShape {
  const char* name;
  int64_t n, k, groups;
  bool fp8_weights, quantize;
  double output_scale;
  bool release;
  bool exact_inputs = true;  // quantized inputs exactly representable after quantization
};

constexpr LinearShape kFp8Shapes[] = {
    {"tiny 256x512", 256, 512, 1, true, true, 1.0, false},
    {"tiny 256x512, unrounded activations", 256, 512, 1, true, true, 1.0, false, false},
    {"wq_a 1024x4096", 1024, 4096, 1, true, true, 1.0, true},
    {"wo_b 4096x8192", 4096, 8192, 1, true, true, 1.0, true},
};
constexpr LinearShape kDenseShapes[] = {
    {"weights_proj 64x256 bf16, scaled", 64, 256, 1, false, false, 1.0 / 90.50966799187809, false},
    // The release's width: a lane's sum runs over 16 steps of 256 columns (the CUDA backend's deep bf16 kernels)
    {"weights_proj 64x4096 bf16, scaled", 64, 4096, 1, false, false, 1.0 / 90.50966799187809, false},
    {"wo_a 4 groups of 64x128 fp8", 256, 128, 4, true, false, 1.0, false},
    // 4096 rows or more: with PLUMB_DENSE_FP8_MMA=0 the CUDA backend's four-features-a-warp FMA kernels (two rows a
    // pass up to 4 rows, eight above); by default its matrix-unit kernel, as every FP8 shape here
    {"wo_a 4 groups of 1024x128 fp8", 4096, 128, 4, true, false, 1.0, false},
    // K of many 128-wide blocks: the CUDA matrix-unit kernel's four K quarters and its staging ring (16 blocks), and
    // 5 blocks, which leave its last quarter empty
    {"wo_a 2 groups of 128x2048 fp8", 256, 2048, 2, true, false, 1.0, false},
    {"wo_a 2 groups of 64x640 fp8", 128, 640, 2, true, false, 1.0, false},
};

class LinearProblem : public OpProblem {
 public:
  LinearProblem(const Binding& b, const LinearShape& s, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), rows_(rows) {
    InputRng rng(seed * 1000003 + uint64_t(s.n * 7 + s.k));
    const int64_t in = s.k * s.groups;
    if (s.fp8_weights) {
      fp8_ = random_fp8_matrix(s.n, s.k, rng);
    } else {
      bf16_ = random_bf16(size_t(s.n * s.k), 1.0 / std::sqrt(double(s.k)), rng);
    }
    // Quantized inputs are exactly representable after the per-128 quantization, so only the sums and the output
    // rounding remain between kernel and oracle.
    if (s.quantize && s.exact_inputs) {
      x_ = bf16_rows(fp8_exact_activations(rows, in, rng), rows, in);
    } else {
      x_ = random_rows(rows, in, 1.0, rng);
      if (s.quantize)  // blocks of very different sizes, some under the scale floor
        for (auto& v : x_.v) v = bf16_round(std::ldexp(v, rng.uniform_int(-16, 4)));
    }
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
    oracle_x_ = x_;
    if (s.quantize && !s.exact_inputs)
      for (int32_t r = 0; r < rows; ++r) round_blocks_exactly(kernels::SimFormat::fp8_e4m3, oracle_x_.row(r), in, 128);
    for (int side : {kTest, kOracle})
      w_[size_t(side)] = backend(side).upload_weight(s.fp8_weights ? weight_of(fp8_) : bf16_weight(bf16_, s.n, s.k));
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(s_.n); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const DeviceTensor x = upload_rows(b, side == kOracle ? oracle_x_ : x_, rows);
    const DeviceTensor y = poisoned_act(b, int64_t(rows.size()), s_.n);
    b.linear({.groups = s_.groups, .quantize_input = s_.quantize, .output_scale = s_.output_scale}, w_[size_t(side)],
             x.t, y.t);
    std::vector<double> out;
    append_values(b, y.t, out);
    return out;
  }

 private:
  LinearShape s_;
  int32_t rows_;
  Fp8Matrix fp8_;
  std::vector<uint16_t> bf16_;
  HostRows x_, oracle_x_;
  std::array<kernels::Weight, 2> w_;
};

template <size_t N>
KernelSpec linear_spec(const Binding& b, const LinearShape (&shapes)[N]) {
  KernelSpec s;
  for (const auto& shape : shapes) {
    Shape sh{shape.name, shape.release};
    if (shape.n * shape.k > (int64_t(1) << 24)) sh.mixes = {RowMix::mix_random};  // the largest: one mix (time)
    s.shapes.push_back(sh);
  }
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.make = [b, &shapes](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : shapes)
      if (shape.name == sh.name) return std::make_unique<LinearProblem>(b, sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace

KernelSpec fp8_linear_entry(const Binding& b) {
  KernelSpec s = linear_spec(b, kFp8Shapes);
  s.name = "fp8_linear";
  s.description = "e4m3 activations (per-128 pow2 scales) x e4m3 weights (128x128 E8M0), promotion per 128, bf16 out";
  // One bf16 rounding of the output (half an ulp: 2^-8 relative); float32 sums of exact e4m3 products add under 1e-4.
  s.bound = 1.0 / 256 + 1e-4;
  s.controls = b.controls("fp8_linear", {"drop_last_k_block", "rows_read_pass_first_row"});
  return s;
}

KernelSpec dense_linear_entry(const Binding& b) {
  KernelSpec s = linear_spec(b, kDenseShapes);
  s.name = "dense_linear";
  s.description = "bf16 activations x bf16 or FP8 weights (grouped), float32 sums, bf16 out times an output scale";
  // Two bf16 roundings (the sum, then the scaled value: 2^-8 relative each); float32 sums add under 1e-4.
  s.bound = 1.0 / 128 + 1e-4;
  s.controls = b.controls("dense_linear", {"groups_read_first_group", "output_scale_skipped"});
  return s;
}

}  // namespace plumb::contract
