// Contract entry: the CUDA routed FP4 experts (gate/up + clamped SwiGLU x routing weight + down + combine in
// ascending expert id + shared output). The oracle is unrounded float64: w1/w3/w2 dequantized exactly, no
// activation quantization. The promised bound is dominated by quantizing h (the down projection's input) to e4m3:
// at most 2^-4 relative per element, averaging out over the inputs of w2: 6% of the row's largest output.
#ifdef PLUMB_HAVE_CUDA
#include <algorithm>
#include <cmath>
#include <memory>

#include "base/number_formats.h"
#include "base/thread_pool.h"
#include "kernels/contract/entries.h"
#include "kernels/contract/inputs.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/fp4_experts.h"

namespace plumb::contract {
namespace {

struct ExpertShape {
  const char* name;
  int64_t experts, hidden, inter;
  int32_t top_k;
  bool release;
};
constexpr ExpertShape kShapes[] = {
    {"tiny 8x256x128 top2", 8, 256, 128, 2, false},
    {"release 8 experts x4096x2048 top6", 8, 4096, 2048, 6, true},
};
constexpr float kLimit = 10.0f;

class ExpertsProblem : public Problem {
 public:
  ExpertsProblem(const ExpertShape& s, RowMix mix, int32_t rows, uint64_t seed) : s_(s), rows_(rows) {
    InputRng rng(seed * 7919 + uint64_t(s.hidden));
    // Scales put the gate and up pre-activations around 10, so the clamp is exercised.
    const int lo = s.hidden >= 4096 ? -4 : -3, hi = lo + 2;
    for (int64_t e = 0; e < s.experts; ++e) {
      w1_.push_back(random_fp4_matrix(s.inter, s.hidden, rng, lo, hi));
      w3_.push_back(random_fp4_matrix(s.inter, s.hidden, rng, lo, hi));
      w2_.push_back(random_fp4_matrix(s.hidden, s.inter, rng, -5, -3));
    }
    x_ = fp8_exact_activations(rows, s.hidden, rng, -7, -5);
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_, rows, s.hidden);
    shared_.resize(size_t(rows * s.hidden));
    for (auto& v : shared_) v = f32_to_bf16(float(30.0 * rng.normal()));  // as large as the routed outputs
    ids_.resize(size_t(rows * s.top_k));
    weights_.resize(ids_.size());
    for (int32_t r = 0; r < rows; ++r) {
      std::vector<int32_t> chosen;
      for (int32_t k = 0; k < s.top_k; ++k) {
        int32_t e;
        if (mix == RowMix::mix_same_routing) {
          e = k;
        } else if (mix == RowMix::mix_disjoint_routing) {
          e = int32_t((r * s.top_k + k) % s.experts);
        } else {
          do e = rng.uniform_int(0, int32_t(s.experts - 1)); while (std::find(chosen.begin(), chosen.end(), e) != chosen.end());
        }
        chosen.push_back(e);
        ids_[size_t(r * s.top_k + k)] = e;
        weights_[size_t(r * s.top_k + k)] = float(rng.uniform(0.05, 0.6));
      }
    }
    upload();
  }

  ~ExpertsProblem() override { cuda::free_fp4_expert_tables(tables_); }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(s_.hidden); }
  // The last variant is the engine's own choice (pass size 0): up to 4 rows 8-row passes in the even columns; from
  // 5 on 8-row passes that take the even columns for an expert with at most 4 pairs; from 9 on, two launches,
  // experts with more than 8 pairs in 16-row passes and the rest in those 8-row passes.
  int32_t variants() const override { return 4; }
  std::string variant_name(int32_t v) const override {
    static const char* names[] = {"8-row passes", "16-row passes", "32-row passes", "passes as served"};
    return names[v];
  }

  void run(std::span<const int32_t> subset, int32_t variant, std::span<double> out) override {
    const int64_t m = int64_t(subset.size()), d = s_.hidden;
    std::vector<uint16_t> x(size_t(m * d)), shared(size_t(m * d)), y(size_t(m * d));
    std::vector<int32_t> ids(size_t(m * s_.top_k));
    std::vector<float> weights(ids.size());
    for (int64_t i = 0; i < m; ++i) {
      const int64_t r = subset[size_t(i)];
      std::copy_n(x_.begin() + r * d, d, x.begin() + i * d);
      std::copy_n(shared_.begin() + r * d, d, shared.begin() + i * d);
      std::copy_n(ids_.begin() + r * s_.top_k, s_.top_k, ids.begin() + i * s_.top_k);
      std::copy_n(weights_.begin() + r * s_.top_k, s_.top_k, weights.begin() + i * s_.top_k);
    }
    dx_.upload(x.data(), x.size() * 2);
    dshared_.upload(shared.data(), shared.size() * 2);
    dids_.upload(ids.data(), ids.size() * 4);
    dweights_.upload(weights.data(), weights.size() * 4);
    dy_.fill_bytes(0xff);
    const int passes[] = {8, 16, 32, 0};
    cuda::ExpertsIo io;
    io.x = dx_.get();
    io.shared = dshared_.as<uint16_t>();
    io.y = dy_.get();
    cuda::fp4_experts(view_, io, m, {dids_.as<int32_t>(), dweights_.as<float>(), s_.top_k}, dws_.get(),
                      passes[variant], nullptr);
    cuda::synchronize();
    dy_.download(y.data(), y.size() * 2);
    for (size_t i = 0; i < y.size(); ++i) out[i] = double(bf16_to_f32(y[i]));
  }

  void oracle(int32_t row, std::span<double> out) override {
    const int64_t d = s_.hidden, n = s_.inter;
    std::vector<double> x(static_cast<size_t>(d));
    for (int64_t c = 0; c < d; ++c) x[size_t(c)] = double(bf16_to_f32(x_[size_t(row * d + c)]));
    for (int64_t c = 0; c < d; ++c) out[size_t(c)] = double(bf16_to_f32(shared_[size_t(row * d + c)]));
    for (int32_t k = 0; k < s_.top_k; ++k) {
      const int32_t e = ids_[size_t(row * s_.top_k + k)];
      const double weight = weights_[size_t(row * s_.top_k + k)];
      std::vector<double> h(static_cast<size_t>(n));
      parallel_for_chunks(size_t(n), 64, [&](size_t b, size_t end) {
        for (size_t f = b; f < end; ++f) {
          double g = 0, u = 0;
          for (int64_t c = 0; c < d; ++c) {
            g += w1_[size_t(e)].value(int64_t(f), c) * x[size_t(c)];
            u += w3_[size_t(e)].value(int64_t(f), c) * x[size_t(c)];
          }
          g = std::min(g, double(kLimit));
          u = std::clamp(u, -double(kLimit), double(kLimit));
          h[f] = g / (1.0 + std::exp(-g)) * u * weight;
        }
      });
      std::vector<double> o(static_cast<size_t>(d));
      parallel_for_chunks(size_t(d), 64, [&](size_t b, size_t end) {
        for (size_t c = b; c < end; ++c) {
          double acc = 0;
          for (int64_t f = 0; f < n; ++f) acc += w2_[size_t(e)].value(int64_t(c), f) * h[size_t(f)];
          o[c] = acc;
        }
      });
      for (int64_t c = 0; c < d; ++c) out[size_t(c)] += o[size_t(c)];
    }
  }

 private:
  void upload() {
    const size_t c13 = cuda::fp4_shuffled_code_bytes(s_.inter, s_.hidden), s13 = cuda::fp4_shuffled_scale_bytes(s_.inter, s_.hidden);
    const size_t c2 = cuda::fp4_shuffled_code_bytes(s_.hidden, s_.inter), s2 = cuda::fp4_shuffled_scale_bytes(s_.hidden, s_.inter);
    std::vector<uint8_t> h13(c13 * 2 * size_t(s_.experts)), hs13(s13 * 2 * size_t(s_.experts));
    std::vector<uint8_t> h2(c2 * size_t(s_.experts)), hs2(s2 * size_t(s_.experts));
    for (int64_t e = 0; e < s_.experts; ++e) {
      const auto& a = w1_[size_t(e)];
      const auto& b = w3_[size_t(e)];
      const auto& c = w2_[size_t(e)];
      cuda::shuffle_fp4_matrix(a.codes.data(), a.scales.data(), s_.inter, s_.hidden, &h13[(2 * e) * c13], &hs13[(2 * e) * s13]);
      cuda::shuffle_fp4_matrix(b.codes.data(), b.scales.data(), s_.inter, s_.hidden, &h13[(2 * e + 1) * c13], &hs13[(2 * e + 1) * s13]);
      cuda::shuffle_fp4_matrix(c.codes.data(), c.scales.data(), s_.hidden, s_.inter, &h2[e * c2], &hs2[e * s2]);
    }
    auto up = [](cuda::DeviceBuffer& buf, const std::vector<uint8_t>& v) {
      buf = cuda::DeviceBuffer(v.size());
      buf.upload(v.data(), v.size());
    };
    up(d13_, h13), up(ds13_, hs13), up(d2_, h2), up(ds2_, hs2);
    tables_ = cuda::make_fp4_expert_tables(d13_.as<uint8_t>(), ds13_.as<uint8_t>(), d2_.as<uint8_t>(),
                                           ds2_.as<uint8_t>(), s_.experts, s_.hidden, s_.inter, view_);
    view_.swiglu_limit = kLimit;
    dx_ = cuda::DeviceBuffer(x_.size() * 2);
    dshared_ = cuda::DeviceBuffer(shared_.size() * 2);
    dy_ = cuda::DeviceBuffer(shared_.size() * 2);
    dids_ = cuda::DeviceBuffer(ids_.size() * 4);
    dweights_ = cuda::DeviceBuffer(weights_.size() * 4);
    dws_ = cuda::DeviceBuffer(cuda::fp4_experts_workspace_bytes(view_, rows_, s_.top_k));
    cuda::fp4_experts_workspace_init(dws_.get(), view_, nullptr);
  }

  ExpertShape s_;
  int32_t rows_;
  std::vector<Fp4Matrix> w1_, w3_, w2_;
  std::vector<uint16_t> x_, shared_;
  std::vector<int32_t> ids_;
  std::vector<float> weights_;
  cuda::Fp4ExpertsView view_;
  void* tables_ = nullptr;
  cuda::DeviceBuffer d13_, ds13_, d2_, ds2_, dx_, dshared_, dy_, dids_, dweights_, dws_;
};

}  // namespace

KernelSpec fp4_experts_cuda_entry() {
  KernelSpec s;
  s.name = "fp4_experts_cuda";
  s.description = "routed FP4 experts: gate/up + clamped SwiGLU x weight + down + ascending-id combine + shared";
  for (const auto& shape : kShapes) s.shapes.push_back({shape.name, shape.release});
  s.mixes = {RowMix::mix_same_routing, RowMix::mix_disjoint_routing, RowMix::mix_random_routing, RowMix::mix_nonfinite};
  s.bound = 0.06;
  s.controls = {"fp4_experts_cuda/rows_read_pass_first_row", "fp4_experts_cuda/scale_per_64",
                "fp4_experts_cuda/no_clamp", "fp4_experts_cuda/skip_shared"};
  s.make = [](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kShapes)
      if (shape.name == sh.name) return std::make_unique<ExpertsProblem>(sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace plumb::contract
#endif  // PLUMB_HAVE_CUDA
