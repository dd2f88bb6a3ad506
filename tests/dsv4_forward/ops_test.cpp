// Single ops of both backends against values computed independently: by hand, from the spec's tables, by a separate
// Python evaluation of the spec's formulas, or (release ops) against the float64 oracle within the bound their
// rounding allows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "base/number_formats.h"
#include "base/rng.h"
#include "kernels/backend.h"
#include "kernels/rope_frequencies.h"
#include "kernels/topk.h"

namespace plumb::test {
namespace {

using namespace kernels;

// Host tensors for either backend's act dtype, filled from doubles.
struct HostTensor {
  std::vector<double> f64;
  std::vector<float> f32;
  Tensor t;
  HostTensor(DType dtype, int64_t rows, int64_t cols, const std::vector<double>& values = {}) {
    const size_t n = size_t(rows * cols);
    if (dtype == DType::dtype_f64) {
      f64 = values.empty() ? std::vector<double>(n, 0.0) : values;
      t = Tensor::of(f64.data(), dtype, rows, cols);
    } else {
      f32.assign(n, 0.0f);
      for (size_t i = 0; i < values.size(); ++i) f32[i] = float(values[i]);
      t = Tensor::of(f32.data(), dtype, rows, cols);
    }
  }
  double at(int64_t r, int64_t c) const {
    return f64.empty() ? double(f32[size_t(r * t.cols + c)]) : f64[size_t(r * t.cols + c)];
  }
};

Weight f32_weight(const std::vector<float>& v, int64_t rows, int64_t cols) {
  return {WeightFormat::f32, rows, cols, v.data(), nullptr};
}

std::vector<double> random_values(uint64_t seed, size_t n, double scale, bool bf16_values) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    const double x = (2.0 * keyed_uniform(seed, i) - 1.0) * scale;
    v[i] = bf16_values ? double(round_bf16(float(x))) : x;
  }
  return v;
}

class BothBackends : public ::testing::TestWithParam<Numerics> {
 protected:
  std::unique_ptr<Backend> backend_ = make_host_backend(GetParam());
  DType act() const { return backend_->act_dtype(); }
  bool release() const { return GetParam() == Numerics::release; }
};

TEST_P(BothBackends, HcPreSinkhornMatchesHandComputation) {
  // fn = 0 makes every mix 0, so pre/post/comb come from base alone; comb runs the full Sinkhorn.
  const int64_t hc = 4, d = 8;
  const std::vector<float> fn(size_t(24 * hc * d), 0.0f), scale = {1.0f, 1.0f, 1.0f};
  std::vector<float> base = {0.2f, -0.1f, 0.0f, 0.3f, -0.4f, 0.1f, 0.5f, -0.2f};
  for (float v : {-0.9f, 0.0f, 0.9f, -0.3f, 0.65f, -0.55f, 0.35f, -0.85f, 0.1f, 1.0f, -0.2f, 0.7f, -0.45f, 0.45f,
                  -0.75f, 0.15f})
    base.push_back(v);
  const HcWeights w{f32_weight(fn, 24, hc * d), f32_weight(base, 1, 24), f32_weight(scale, 1, 3)};
  std::vector<double> xv(size_t(hc * d));
  for (int64_t k = 0; k < hc; ++k)
    for (int64_t j = 0; j < d; ++j) xv[size_t(k * d + j)] = double(k + 1) * (j % 2 ? 0.5 : -0.25);
  HostTensor x(act(), 1, hc * d, xv), y(act(), 1, d), post(act(), 1, hc), comb(act(), 1, hc * hc);
  backend_->hc_pre({.hc_mult = hc, .hidden = d}, w, x.t, y.t, post.t, comb.t);

  // Evaluated separately in Python from dsv4-forward.md section 6.1, in float64.
  const double want_comb[16] = {0.10934154001310495, 0.19501574258093562, 0.5006258961395583,  0.19501582126640118,
                                0.5006257953801219,  0.10934137081300695, 0.28069030742304196, 0.10934152638382919,
                                0.1950158317185763,  0.3478209461471766,  0.10934139829813468, 0.3478208238361124,
                                0.19501583288819688, 0.3478209404588809,  0.10934139813926501, 0.3478208285136572};
  const double want_pre[4] = {0.5498349980501348, 0.4750218121494607, 0.500001, 0.5744435197258291};
  const double want_post[4] = {0.8026246769109647, 1.0499583757010784, 1.2449186624037092, 0.9003320038997303};
  const double tol = release() ? 3e-6 : 1e-13;  // float32 Sinkhorn: a few ulps of O(1) values
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(comb.at(0, i), want_comb[i], tol) << i;
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(post.at(0, k), want_post[k], tol) << k;
  for (int64_t j = 0; j < d; ++j) {
    double want = 0;
    for (int64_t k = 0; k < hc; ++k) want += want_pre[k] * xv[size_t(k * d + j)];
    // Release rounds the collapsed input to bf16: half an ulp of 2^-8 relative.
    EXPECT_NEAR(y.at(0, j), want, release() ? std::fabs(want) * 0x1p-8 + 1e-6 : 1e-13) << j;
  }
}

TEST_P(BothBackends, HadamardOfAUnitVectorIsAScaledSylvesterRow) {
  for (int64_t i : {0, 1, 77, 127}) {
    std::vector<double> e(128, 0.0);
    e[size_t(i)] = 1.0;
    HostTensor x(act(), 1, 128, e);
    backend_->hadamard({128}, x.t);
    const double magnitude = release() ? double(round_bf16(float(1.0 / std::sqrt(128.0)))) : 1.0 / std::sqrt(128.0);
    for (int64_t j = 0; j < 128; ++j) {
      const double sign = (__builtin_popcountll(uint64_t(i & j)) % 2) ? -1.0 : 1.0;
      EXPECT_NEAR(x.at(0, j), sign * magnitude, 1e-15) << i << "," << j;
    }
  }
}

TEST_P(BothBackends, AttentionSinkJoinsTheDenominatorOnly) {
  // q = 0: every key's logit is 0, so o = (sum of visible values) / (visible + exp(sink)).
  const int64_t d = 64;
  const std::vector<float> sink = {0.7f};
  HostTensor q(act(), 1, d), out(act(), 1, d);
  HostTensor ring(act(), 4, d, random_values(3, 4 * d, 1.0, true));  // one slot, ring of 4 rows
  const AttentionParams p{.heads = 1, .head_dim = d, .softmax_scale = 0.125, .window = 2, .ring_rows = 4};
  const TokenRow row{0, 6};  // sees positions 5 and 6: ring rows 1 and 2
  backend_->attention(p, q.t, ring.t, Tensor{}, nullptr, f32_weight(sink, 1, 1), std::span<const TokenRow>(&row, 1),
                      out.t);
  const double denominator = 2.0 + std::exp(double(sink[0]));
  for (int64_t c = 0; c < d; ++c) {
    const double want = (ring.at(1, c) + ring.at(2, c)) / denominator;
    EXPECT_NEAR(out.at(0, c), want, release() ? std::fabs(want) * 0x1p-8 + 1e-7 : 1e-15) << c;
  }
}

TEST_P(BothBackends, AttentionOfANanQueryHeadIsNan) {
  // Head 0's query holds a NaN, so every logit of that head is NaN; head 1 is finite.
  const int64_t d = 16;
  const std::vector<float> sink = {0.5f, 0.5f};
  std::vector<double> qv(size_t(2 * d), 0.25);
  qv[3] = std::nan("");
  HostTensor q(act(), 1, 2 * d, qv), out(act(), 1, 2 * d);
  HostTensor ring(act(), 4, d, random_values(5, 4 * d, 1.0, true));
  const AttentionParams p{.heads = 2, .head_dim = d, .softmax_scale = 0.25, .window = 3, .ring_rows = 4, .block = 2};
  const TokenRow row{0, 2};
  backend_->attention(p, q.t, ring.t, Tensor{}, nullptr, f32_weight(sink, 1, 2), std::span<const TokenRow>(&row, 1),
                      out.t);
  for (int64_t c = 0; c < d; ++c) {
    EXPECT_TRUE(std::isnan(out.at(0, c))) << c;
    EXPECT_TRUE(std::isfinite(out.at(0, d + c))) << c;
  }
}

TEST_P(BothBackends, IndexerScoresOfANanQueryAreNan) {
  // A NaN in head 0's query: relu keeps it, so every score is NaN, the margin is NaN and the tie rule (NaN last,
  // then ascending row) selects the first rows.
  const int64_t heads = 2, d = 8, rows_per_slot = 6;
  std::vector<double> qv(size_t(heads * d), 0.5);
  qv[2] = std::nan("");
  HostTensor q(act(), 1, heads * d, qv), w(act(), 1, heads, {1.0, 1.0});
  HostTensor keys(act(), rows_per_slot, d, random_values(9, size_t(rows_per_slot * d), 1.0, true));
  HostTensor margin(act(), 1, 1);
  std::vector<int32_t> selected(3, 99);
  const IndexerParams p{.heads = heads, .head_dim = d, .topk = 3, .ratio = 4, .rows_per_slot = rows_per_slot};
  const TokenRow row{0, 23};  // 6 visible rows
  backend_->indexer_topk(p, q.t, w.t, keys.t, std::span<const TokenRow>(&row, 1),
                         Tensor::of(selected.data(), DType::dtype_i32, 1, 3), &margin.t);
  EXPECT_EQ(selected, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_TRUE(std::isnan(margin.at(0, 0)));
}

INSTANTIATE_TEST_SUITE_P(Backends, BothBackends, ::testing::Values(Numerics::release, Numerics::oracle),
                         [](const auto& info) { return std::string(numerics_name(info.param)); });

TEST(RopeFrequencies, YarnTableMatchesTheReleaseValues) {
  const RopeParams p{.head_dim = 512, .rope_dims = 64, .theta = 160000.0, .yarn_factor = 16.0,
                     .yarn_original = 65536, .beta_fast = 32.0, .beta_slow = 1.0};
  const YarnRange range = yarn_range(p);
  EXPECT_EQ(range.low, 15.0);
  EXPECT_EQ(range.high, 25.0);
  // dsv4-forward.md section 4.2 (release fp32 table, printed to 8 significant digits).
  const std::vector<std::pair<int, double>> want = {{0, 1.0},          {8, 0.05},         {15, 0.0036355385},
                                                    {16, 0.0022656249}, {20, 0.00029697779}, {24, 1.9531253e-05},
                                                    {25, 5.3723124e-06}, {31, 5.6805294e-07}};
  const std::vector<float> f32 = rope_frequencies_f32(p);
  const std::vector<double> f64 = rope_frequencies_f64(p);
  for (const auto& [k, v] : want) {
    EXPECT_NEAR(f32[size_t(k)], v, v * 1e-7) << k;
    EXPECT_NEAR(f64[size_t(k)], v, v * 2e-7) << k;
  }
}

TEST(QuantSim, Fp8BlockRoundsToNearestEvenWithAPowerOfTwoScale) {
  // amax 300 -> scale 2^ceil(log2(300/448)) = 1; e4m3 steps: 32 in [256, 448), 0.125 in [1, 2), 0.25 in [2, 4).
  std::vector<double> block(64, 0.0);
  block[0] = 300, block[1] = 1.0625, block[2] = 1.1875, block[3] = -0.0078125, block[4] = 3.296875;
  const double want[5] = {288, 1.0, 1.25, -0.0078125, 3.25};  // ties to even mantissa; 2^-7 is exact
  for (Numerics n : {Numerics::release, Numerics::oracle}) {
    auto be = make_host_backend(n);
    HostTensor x(be->act_dtype(), 1, 64, block);
    be->quant_sim({SimFormat::fp8_e4m3, 64, 0, 64}, x.t);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(x.at(0, i), n == Numerics::release ? want[i] : block[size_t(i)]) << i;
  }
}

TEST(QuantSim, Fp4BlockRoundsToNearestEvenWithAPowerOfTwoScale) {
  auto be = make_host_backend(Numerics::release);
  // amax 6 -> scale 1: grid {0, .5, 1, 1.5, 2, 3, 4, 6}, midpoints to the even code.
  HostTensor x(be->act_dtype(), 2, 32);
  const float in[7] = {6, 5, 2.5f, 0.25f, 0.75f, -1.75f, 0.3f}, out[7] = {6, 4, 2, 0, 1, -2, 0.5f};
  for (int i = 0; i < 7; ++i) x.f32[size_t(i)] = in[i];
  // amax 7 -> scale 2: 7/2 = 3.5 is a midpoint of 3 and 4 -> 4 -> 8; 1/2 = 0.5 stays.
  x.f32[32] = 7, x.f32[33] = 1;
  be->quant_sim({SimFormat::fp4_e2m1, 32, 0, 32}, x.t);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(x.f32[size_t(i)], out[i]) << i;
  EXPECT_EQ(x.f32[32], 8.0f);
  EXPECT_EQ(x.f32[33], 1.0f);
}

TEST(QuantSim, NanStaysNanAndInfinityStaysInfinite) {
  auto be = make_host_backend(Numerics::release);
  for (SimFormat format : {SimFormat::fp8_e4m3, SimFormat::fp4_e2m1}) {
    // Block 0: a NaN among numbers (amax 3 -> the numbers round as usual); block 1: an infinity among numbers.
    HostTensor x(be->act_dtype(), 1, 64);
    x.f32[0] = 3.0f, x.f32[1] = std::nanf(""), x.f32[2] = -1.5f;
    x.f32[32] = 2.0f, x.f32[33] = -INFINITY, x.f32[34] = 0.5f;
    be->quant_sim({format, 32, 0, 64}, x.t);
    EXPECT_EQ(x.f32[0], 3.0f);
    EXPECT_TRUE(std::isnan(x.f32[1])) << "format " << int(format);
    EXPECT_EQ(x.f32[2], -1.5f);
    // An infinite maximum makes the scale 2^128: the infinity stays, the finite values of its block become 0.
    EXPECT_EQ(x.f32[33], -INFINITY) << "format " << int(format);
    EXPECT_EQ(x.f32[32], 0.0f);
    EXPECT_EQ(x.f32[34], 0.0f);
  }
}

TEST(TopK, TiesGoToTheLowerIndexAndNanComesLast) {
  const std::vector<double> v = {1.0, 3.0, std::nan(""), 3.0, 2.0, 3.0};
  const TopK<double> top = top_k(std::span<const double>(v), 4);
  EXPECT_EQ(top.order, (std::vector<int64_t>{1, 3, 5, 4}));
  EXPECT_EQ(top.margin, 1.0);  // 2.0 kept, 1.0 dropped
  const TopK<double> all = top_k(std::span<const double>(v), 9);
  EXPECT_EQ(all.order, (std::vector<int64_t>{1, 3, 5, 4, 0, 2}));
  EXPECT_TRUE(std::isinf(all.margin));
  const TopK<double> tie = top_k(std::span<const double>(v), 2);
  EXPECT_EQ(tie.margin, 0.0);  // 3.0 kept, 3.0 dropped: an exact tie
}

}  // namespace
}  // namespace plumb::test
