// Contract entries of the small ops: the embedding lookup (exact), the bf16 sum with a repeated second operand,
// and the Hadamard transform (float32 butterflies, bf16 out). The oracle is the reference op in float64.
#include <cmath>
#include <memory>

#include "base/number_formats.h"
#include "kernels/contract/entries.h"
#include "kernels/contract/entries/op_problem.h"

namespace plumb::contract {
namespace {

// ---- embedding ----

class EmbedProblem : public OpProblem {
 public:
  static constexpr int64_t kVocab = 64, kDim = 256, kCopies = 4;
  EmbedProblem(const Binding& b, RowMix mix, int32_t rows, uint64_t seed) : OpProblem(b), rows_(rows) {
    InputRng rng(seed * 97 + 3);
    table_ = random_bf16(size_t(kVocab * kDim), 1.0, rng);
    for (int32_t r = 0; r < rows; ++r) tokens_.push_back(rng.uniform_int(0, kVocab - 1));
    if (mix == RowMix::mix_nonfinite) {
      if (rows > 1) table_[size_t(tokens_[1] * kDim + 3)] = f32_to_bf16(NAN);
      if (rows > 2) table_[size_t(tokens_[2] * kDim + kDim / 2)] = f32_to_bf16(INFINITY);
    }
    for (int side : {kTest, kOracle}) w_[size_t(side)] = backend(side).upload_weight(bf16_weight(table_, kVocab, kDim));
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(kCopies * kDim); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    std::vector<int32_t> tokens;
    for (int32_t r : rows) tokens.push_back(tokens_[size_t(r)]);
    const DeviceTensor out = poisoned_act(b, int64_t(rows.size()), kCopies * kDim);
    b.embed(w_[size_t(side)], tokens, kCopies, out.t);
    std::vector<double> values;
    append_values(b, out.t, values);
    return values;
  }

 private:
  int32_t rows_;
  std::vector<uint16_t> table_;
  std::vector<int32_t> tokens_;
  std::array<kernels::Weight, 2> w_;
};

// ---- a + b, b repeated ----

class AddProblem : public OpProblem {
 public:
  static constexpr int64_t kCols = 256, kRepeat = 4;
  AddProblem(const Binding& b, RowMix mix, int32_t rows, uint64_t seed) : OpProblem(b), rows_(rows) {
    InputRng rng(seed * 389 + 11);
    a_ = random_rows(rows, kCols, 1.0, rng);
    b_ = random_rows(rows, kCols / kRepeat, 1.0, rng);
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(a_);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(kCols); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& be = backend(side);
    const DeviceTensor a = upload_rows(be, a_, rows), b = upload_rows(be, b_, rows);
    const DeviceTensor out = poisoned_act(be, int64_t(rows.size()), kCols);
    be.add(a.t, b.t, out.t);
    std::vector<double> values;
    append_values(be, out.t, values);
    return values;
  }

 private:
  int32_t rows_;
  HostRows a_, b_;
};

// ---- Hadamard ----

class HadamardProblem : public OpProblem {
 public:
  static constexpr int64_t kSize = 128, kCols = 256;
  HadamardProblem(const Binding& b, RowMix mix, int32_t rows, uint64_t seed) : OpProblem(b), rows_(rows) {
    InputRng rng(seed * 1201 + 7);
    x_ = random_rows(rows, kCols, 1.0, rng);
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(kCols); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const DeviceTensor x = upload_rows(b, x_, rows);
    b.hadamard({kSize}, x.t);
    std::vector<double> values;
    append_values(b, x.t, values);
    return values;
  }

 private:
  int32_t rows_;
  HostRows x_;
};

template <typename P>
KernelSpec simple_spec(const Binding& b, const char* name, const char* description, const char* shape, double bound) {
  KernelSpec s;
  s.name = name;
  s.description = description;
  s.shapes = {{shape, false}};
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.bound = bound;
  s.make = [b](const Shape&, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    return std::make_unique<P>(b, mix, rows, seed);
  };
  return s;
}

}  // namespace

KernelSpec embed_entry(const Binding& b) {
  KernelSpec s = simple_spec<EmbedProblem>(b, "embed", "bf16 embedding rows, copied into the 4 streams (exact)",
                                           "vocab 64 x 256, 4 copies", 0);
  s.controls = b.controls("embed", {"token_off_by_one"});
  return s;
}

KernelSpec add_entry(const Binding& b) {
  // One bf16 rounding (2^-8 relative) of the float32 sum.
  KernelSpec s = simple_spec<AddProblem>(b, "add", "a + b with b repeated along the row, float32 sum, bf16 out",
                                         "256 + 64 repeated 4 times", 1.0 / 256 + 1e-5);
  s.controls = b.controls("add", {"repeat_skipped"});
  return s;
}

KernelSpec hadamard_entry(const Binding& b) {
  // Seven float32 butterfly stages (a few float32 roundings) and one bf16 rounding (2^-8 relative).
  KernelSpec s = simple_spec<HadamardProblem>(b, "hadamard", "Sylvester Hadamard / sqrt(128) per 128 columns, bf16 out",
                                              "2 blocks of 128", 1.0 / 256 + 1e-5);
  s.controls = b.controls("hadamard", {"last_stage_skipped"});
  return s;
}

}  // namespace plumb::contract
