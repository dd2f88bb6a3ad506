// Contract entry: the CUDA FP8 linear (activation quantization + e4m3 MMA with per-128 promotion + bf16 output).
// Inputs are exactly representable after activation quantization, so the promised error is the accumulation and
// the bf16 output rounding alone: 2^-8 of the row's largest output.
#ifdef PLUMB_HAVE_CUDA
#include <cmath>
#include <memory>

#include "base/number_formats.h"
#include "base/thread_pool.h"
#include "kernels/contract/entries.h"
#include "kernels/contract/inputs.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/fp8_linear.h"

namespace plumb::contract {
namespace {

struct Fp8LinearShape {
  const char* name;
  int64_t n, k;
  bool release;
};
constexpr Fp8LinearShape kShapes[] = {
    {"tiny 256x512", 256, 512, false},
    {"wq_a 1024x4096", 1024, 4096, true},
    {"wo_b 4096x8192", 4096, 8192, true},
};

class Fp8LinearProblem : public Problem {
 public:
  Fp8LinearProblem(const Fp8LinearShape& s, RowMix mix, int32_t rows, uint64_t seed) : rows_(rows) {
    InputRng rng(seed * 1000003 + uint64_t(s.n));
    w_ = random_fp8_matrix(s.n, s.k, rng);
    x_ = fp8_exact_activations(rows, s.k, rng);
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_, rows, s.k);
    dw_codes_ = cuda::DeviceBuffer(w_.codes.size());
    dw_codes_.upload(w_.codes.data(), w_.codes.size());
    dw_scales_ = cuda::DeviceBuffer(w_.scales.size());
    dw_scales_.upload(w_.scales.data(), w_.scales.size());
    dx_ = cuda::DeviceBuffer(x_.size() * 2);
    dy_ = cuda::DeviceBuffer(size_t(rows * s.n) * 2);
    dws_ = cuda::DeviceBuffer(cuda::fp8_linear_workspace_bytes(s.n, s.k, rows));
    cuda::fp8_linear_workspace_init(dws_.get(), s.n, nullptr);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(w_.n); }
  int32_t variants() const override { return 4; }
  std::string variant_name(int32_t v) const override {
    static const char* names[] = {"8-row passes", "16-row passes", "32-row passes",
                                  "8-row passes, quantized in the linear"};
    return names[v];
  }

  void run(std::span<const int32_t> subset, int32_t variant, std::span<double> out) override {
    const int64_t n = w_.n, k = w_.k, m = int64_t(subset.size());
    std::vector<uint16_t> x(size_t(m * k)), y(size_t(m * n));
    for (int64_t i = 0; i < m; ++i)
      std::copy_n(x_.begin() + subset[size_t(i)] * k, k, x.begin() + i * k);
    dx_.upload(x.data(), x.size() * 2);
    dy_.fill_bytes(0xff);
    const cuda::Fp8WeightView view{dw_codes_.as<uint8_t>(), dw_scales_.as<uint8_t>(), n, k};
    const int passes[] = {8, 16, 32, 8};
    const auto quantize = variant == 3 ? cuda::Fp8Quantize::in_linear : cuda::Fp8Quantize::separate;
    cuda::fp8_linear(view, dx_.as<uint16_t>(), m, dy_.as<uint16_t>(), dws_.get(), passes[variant], nullptr,
                     quantize);
    cuda::synchronize();
    dy_.download(y.data(), y.size() * 2);
    for (size_t i = 0; i < y.size(); ++i) out[i] = double(bf16_to_f32(y[i]));
  }

  void oracle(int32_t row, std::span<double> out) override {
    parallel_for_chunks(size_t(w_.n), 64, [&](size_t begin, size_t end) {
      for (size_t o = begin; o < end; ++o) {
        double acc = 0;
        for (int64_t c = 0; c < w_.k; ++c)
          acc += w_.value(int64_t(o), c) * double(bf16_to_f32(x_[size_t(row * w_.k + c)]));
        out[o] = acc;
      }
    });
  }

 private:
  int32_t rows_;
  Fp8Matrix w_;
  std::vector<uint16_t> x_;
  cuda::DeviceBuffer dw_codes_, dw_scales_, dx_, dy_, dws_;
};

}  // namespace

KernelSpec fp8_linear_cuda_entry() {
  KernelSpec s;
  s.name = "fp8_linear_cuda";
  s.description = "e4m3 activations (per-128 pow2 scales) x e4m3 weights (128x128 E8M0), promotion per 128, bf16 out";
  for (const auto& shape : kShapes) s.shapes.push_back({shape.name, shape.release});
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.bound = 1.0 / 256;
  s.controls = {"fp8_linear_cuda/drop_last_k_block", "fp8_linear_cuda/rows_read_pass_first_row"};
  s.make = [](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kShapes)
      if (shape.name == sh.name) return std::make_unique<Fp8LinearProblem>(sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace plumb::contract
#endif  // PLUMB_HAVE_CUDA
