// Contract entries of mHC (manifold-constrained hyper-connections, 4 streams): hc_pre's collapsed sublayer input
// (mhc_pre, bf16) and its post / Sinkhorn-normalized comb mixing weights (mhc_pre_weights, float32, so checked to a
// float32 bound), that input's RMSNorm (mhc_pre_norm, bf16), hc_post (bf16) and hc_head (bf16). The oracle is the
// reference op in float64.
#include <cmath>
#include <memory>

#include "base/number_formats.h"
#include "kernels/contract/entries.h"
#include "kernels/contract/entries/op_problem.h"
#include "kernels/control.h"

namespace plumb::contract {
namespace {

constexpr int64_t kHc = 4;

struct HcShape {
  const char* name;
  int64_t hidden;
  bool release;
};
constexpr HcShape kShapes[] = {{"4 streams x 64", 64, false}, {"release 4 streams x 4096", 4096, true}};

// Streams whose magnitude differs by row (0.1 to 10) and by stream within a row (a factor up to 4).
HostRows stream_rows(int32_t rows, int64_t hidden, InputRng& rng) {
  HostRows x(rows, kHc * hidden);
  for (int32_t r = 0; r < rows; ++r) {
    const double scale = std::pow(10.0, rng.uniform(-1.0, 1.0));
    for (int64_t k = 0; k < kHc; ++k) {
      const double stream_scale = scale * rng.uniform(0.5, 2.0);
      for (int64_t j = 0; j < hidden; ++j) x.row(r)[k * hidden + j] = bf16_round(stream_scale * rng.normal());
    }
  }
  return x;
}

// mHC mixing weights: fn [mixes, hc * hidden] making every mix about N(0, 1), base, scale.
struct HcHostWeights {
  std::vector<float> fn, base, scale;
  HcHostWeights(int64_t mixes, int64_t scales, int64_t hidden, InputRng& rng)
      : fn(random_f32(size_t(mixes * kHc * hidden), 1.0 / std::sqrt(double(kHc * hidden)), rng)),
        base(random_f32(size_t(mixes), 0.5, rng)) {
    for (int64_t i = 0; i < scales; ++i) scale.push_back(float(rng.uniform(0.5, 2.0)));
  }
  kernels::HcWeights upload(kernels::Backend& b, int64_t hidden) const {
    const int64_t mixes = int64_t(base.size());
    return {b.upload_weight(f32_weight(fn, mixes, kHc * hidden)), b.upload_weight(f32_weight(base, 1, mixes)),
            b.upload_weight(f32_weight(scale, 1, int64_t(scale.size())))};
  }
};

kernels::HcParams hc_params(int64_t hidden) { return {.hc_mult = kHc, .hidden = hidden}; }

// ---- hc_pre ----

enum class PrePart { input, weights, normed };

class HcPreProblem : public OpProblem {
 public:
  HcPreProblem(const Binding& b, const HcShape& s, PrePart part, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), part_(part), rows_(rows), rng_(seed * 827 + uint64_t(s.hidden)),
        w_((2 + kHc) * kHc, 3, s.hidden, rng_), x_(stream_rows(rows, s.hidden, rng_)) {
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
    norm_weight_.resize(size_t(s.hidden));  // an RMSNorm weight about 1, as rms_norm's entry has it
    for (auto& w : norm_weight_) w = f32_to_bf16(float(1.0 + 0.3 * rng_.normal()));
    for (int side : {kTest, kOracle}) {
      uploaded_[size_t(side)] = w_.upload(backend(side), s.hidden);
      norm_[size_t(side)] = backend(side).upload_weight(bf16_weight(norm_weight_, 1, s.hidden));
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(part_ == PrePart::weights ? kHc + kHc * kHc : s_.hidden); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const int64_t m = int64_t(rows.size());
    const DeviceTensor x = upload_rows(b, x_, rows), y = poisoned_act(b, m, s_.hidden);
    const DeviceTensor post = poisoned_act(b, m, kHc), comb = poisoned_act(b, m, kHc * kHc);
    std::vector<double> out;
    if (part_ == PrePart::normed) {
      const DeviceTensor xn = poisoned_act(b, m, s_.hidden);
      b.hc_pre_norm(hc_params(s_.hidden), uploaded_[size_t(side)], {1e-6}, norm_[size_t(side)], x.t, y.t, xn.t,
                    post.t, comb.t);
      append_values(b, xn.t, out);
      return out;
    }
    b.hc_pre(hc_params(s_.hidden), uploaded_[size_t(side)], x.t, y.t, post.t, comb.t);
    if (part_ == PrePart::input) {
      append_values(b, y.t, out);
      return out;
    }
    std::vector<double> p, c;
    append_values(b, post.t, p);
    append_values(b, comb.t, c);
    for (int64_t i = 0; i < m; ++i) {
      out.insert(out.end(), p.begin() + i * kHc, p.begin() + (i + 1) * kHc);
      out.insert(out.end(), c.begin() + i * kHc * kHc, c.begin() + (i + 1) * kHc * kHc);
    }
    return out;
  }
  std::string column_name(int32_t col) const override {
    if (part_ != PrePart::weights) return "col " + std::to_string(col);
    if (col < kHc) return "post " + std::to_string(col);
    return "comb " + std::to_string((col - kHc) / kHc) + "->" + std::to_string((col - kHc) % kHc);
  }

 private:
  HcShape s_;
  PrePart part_;
  int32_t rows_;
  InputRng rng_;
  HcHostWeights w_;
  HostRows x_;
  std::array<kernels::HcWeights, 2> uploaded_;
  std::vector<uint16_t> norm_weight_;  // host weights live as long as the problem (a host backend reads them there)
  std::array<kernels::Weight, 2> norm_;
};

// ---- hc_post ----

class HcPostProblem : public OpProblem {
 public:
  HcPostProblem(const Binding& b, const HcShape& s, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), rows_(rows), post_(rows, kHc), comb_(rows, kHc * kHc) {
    InputRng rng(seed * 1543 + uint64_t(s.hidden));
    f_ = random_rows(rows, s.hidden, 1.0, rng);
    x_ = stream_rows(rows, s.hidden, rng);
    // post in (0, 2); comb positive with columns summing to about one, far from symmetric.
    for (int32_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < kHc; ++k) post_.row(r)[k] = double(float(rng.uniform(0.1, 1.9)));
      for (int64_t i = 0; i < kHc * kHc; ++i) comb_.row(r)[i] = double(float(rng.uniform(0.0, 0.5)));
    }
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(kHc * s_.hidden); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const DeviceTensor f = upload_rows(b, f_, rows), x = upload_rows(b, x_, rows);
    const DeviceTensor post = upload_rows(b, post_, rows), comb = upload_rows(b, comb_, rows);
    const DeviceTensor out = poisoned_act(b, int64_t(rows.size()), kHc * s_.hidden);
    b.hc_post(hc_params(s_.hidden), f.t, x.t, post.t, comb.t, out.t);
    std::vector<double> values;
    append_values(b, out.t, values);
    return values;
  }

 private:
  HcShape s_;
  int32_t rows_;
  HostRows f_, x_, post_, comb_;
};

// ---- hc_head ----

class HcHeadProblem : public OpProblem {
 public:
  HcHeadProblem(const Binding& b, const HcShape& s, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), rows_(rows), rng_(seed * 2311 + uint64_t(s.hidden)), w_(kHc, 1, s.hidden, rng_),
        x_(stream_rows(rows, s.hidden, rng_)) {
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
    for (int side : {kTest, kOracle}) uploaded_[size_t(side)] = w_.upload(backend(side), s.hidden);
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(s_.hidden); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const DeviceTensor x = upload_rows(b, x_, rows), y = poisoned_act(b, int64_t(rows.size()), s_.hidden);
    b.hc_head(hc_params(s_.hidden), uploaded_[size_t(side)], x.t, y.t);
    std::vector<double> values;
    append_values(b, y.t, values);
    return values;
  }

 private:
  HcShape s_;
  int32_t rows_;
  InputRng rng_;
  HcHostWeights w_;
  HostRows x_;
  std::array<kernels::HcWeights, 2> uploaded_;
};

template <typename Make>
KernelSpec hc_spec(const char* name, const char* description, double bound, Make make) {
  KernelSpec s;
  s.name = name;
  s.description = description;
  for (const auto& shape : kShapes) {
    Shape sh{shape.name, shape.release};
    if (shape.release) sh.mixes = {RowMix::mix_random};
    s.shapes.push_back(sh);
  }
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.bound = bound;
  s.make = [make](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kShapes)
      if (shape.name == sh.name) return make(sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace

KernelSpec mhc_pre_entry(const Binding& b) {
  // The collapsed input is rounded to bf16 once (2^-8 relative); its float32 stream weights add ~1e-6.
  KernelSpec s = hc_spec("mhc_pre", "hc_pre: rms-scaled mixes, pre weights, sum of the 4 streams, bf16 out", 1.0 / 256 + 1e-5,
                         [b](const HcShape& sh, RowMix mix, int32_t rows, uint64_t seed) {
                           return std::make_unique<HcPreProblem>(b, sh, PrePart::input, mix, rows, seed);
                         });
  s.controls = b.controls("mhc_pre", {"rms_over_first_stream"});
  return s;
}

KernelSpec mhc_pre_weights_entry(const Binding& b) {
  // float32 throughout: mixes are float32 sums over 4 x hidden products (relative 1e-6 at these sizes), then
  // sigmoid, a softmax and 20 Sinkhorn rounds of O(1) values, each a few float32 roundings.
  KernelSpec s = hc_spec("mhc_pre_weights", "hc_pre: post = 2 sigmoid, comb = Sinkhorn (20 rounds), float32", 2e-5,
                         [b](const HcShape& sh, RowMix mix, int32_t rows, uint64_t seed) {
                           return std::make_unique<HcPreProblem>(b, sh, PrePart::weights, mix, rows, seed);
                         });
  s.controls = b.controls("mhc_pre", {"comb_transposed", "sinkhorn_one_round", "rms_over_first_stream"});
  return s;
}

KernelSpec mhc_pre_norm_entry(const Binding& b) {
  // The collapsed input's bf16 rounding (2^-8 relative) carries into the norm's output and its mean square (2^-8
  // relative at most), and the output is rounded once more: 3 x 2^-8.
  KernelSpec s = hc_spec("mhc_pre_norm", "hc_pre_norm: hc_pre's collapsed input, then its RMSNorm with a weight, bf16 out",
                         3.0 / 256 + 1e-5, [b](const HcShape& sh, RowMix mix, int32_t rows, uint64_t seed) {
                           return std::make_unique<HcPreProblem>(b, sh, PrePart::normed, mix, rows, seed);
                         });
  s.controls = b.controls("mhc_pre", {"rms_over_first_stream"});
  // The CUDA norm inside hc_pre's block, which has no CPU counterpart (the CPU runs hc_pre, then rms_norm).
  const std::string first_warp = "mhc_pre_norm" + b.control_suffix + "/norm_first_warp_only";
  if (kernels::find_control(first_warp)) s.controls.push_back(first_warp);
  return s;
}

KernelSpec mhc_post_entry(const Binding& b) {
  // One bf16 rounding (2^-8 relative) of a float32 sum of five products.
  KernelSpec s = hc_spec("mhc_post", "hc_post: post x f + comb^T x streams, bf16 out", 1.0 / 256 + 1e-5,
                         [b](const HcShape& sh, RowMix mix, int32_t rows, uint64_t seed) {
                           return std::make_unique<HcPostProblem>(b, sh, mix, rows, seed);
                         });
  s.controls = b.controls("mhc_post", {"comb_transposed", "post_ignored"});
  return s;
}

KernelSpec mhc_head_entry(const Binding& b) {
  // As mhc_pre: one bf16 rounding of a float32 weighted sum.
  KernelSpec s = hc_spec("mhc_head", "hc_head: sigmoid stream weights, sum of the 4 streams, bf16 out", 1.0 / 256 + 1e-5,
                         [b](const HcShape& sh, RowMix mix, int32_t rows, uint64_t seed) {
                           return std::make_unique<HcHeadProblem>(b, sh, mix, rows, seed);
                         });
  s.controls = b.controls("mhc_head", {"rms_over_first_stream"});
  return s;
}

}  // namespace plumb::contract
