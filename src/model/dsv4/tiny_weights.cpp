// Filling a tensor plan with seeded values and quantizing them the way the release stores them.
#include "model/dsv4/tiny_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string_view>

#include "base/error.h"
#include "base/number_formats.h"
#include "base/rng.h"
#include "model/dsv4/tensor_plan.h"

namespace plumb::dsv4 {
namespace {

constexpr int64_t kTile = 128;
constexpr int64_t kFp4Block = 32;

uint32_t name_stream(std::string_view name) {  // FNV-1a: each tensor draws from its own Philox stream
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ uint8_t(c)) * 16777619u;
  return h;
}

class Draws {
 public:
  Draws(uint64_t seed, std::string_view name) : seed_(seed), stream_(name_stream(name)) {}
  double unit(uint64_t i) const { return keyed_uniform(seed_, i, stream_); }  // [0, 1)
  // Uniform on [-1, 1) times `half_width`, rounded to float32.
  float symmetric(uint64_t i, double half_width) const { return float((2.0 * unit(i) - 1.0) * half_width); }

 private:
  uint64_t seed_;
  uint32_t stream_;
};

std::vector<std::byte> to_bytes(std::span<const uint8_t> v) {
  std::vector<std::byte> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), [](uint8_t b) { return std::byte(b); });
  return out;
}

template <typename T>
void put_le(std::vector<std::byte>& out, size_t at, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) out[at + i] = std::byte(uint8_t(uint64_t(value) >> (8 * i)));
}

std::vector<std::byte> f32_bytes(std::span<const float> v) {
  std::vector<std::byte> out(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], 4);
    put_le(out, i * 4, bits);
  }
  return out;
}

std::vector<std::byte> bf16_bytes(std::span<const float> v) {
  std::vector<std::byte> out(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) put_le(out, i * 2, f32_to_bf16(v[i]));
  return out;
}

int64_t numel(const PlannedTensor& t) {
  return std::accumulate(t.shape.begin(), t.shape.end(), int64_t(1), std::multiplies<>());
}

// Uniform values with standard deviation `stddev` (half width sqrt(3) * stddev) around `center`.
std::vector<float> draw(const Draws& d, int64_t n, double stddev, double center = 0.0) {
  std::vector<float> v(static_cast<size_t>(n));
  const double half_width = std::sqrt(3.0) * stddev;
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = float(center) + d.symmetric(uint64_t(i), half_width);
  return v;
}

// tid2eid: for each token a Fisher-Yates prefix of the experts, so a row never repeats an expert.
std::vector<std::byte> hash_table(const Draws& d, int64_t vocab, int64_t per_token, int64_t n_experts) {
  std::vector<std::byte> out(static_cast<size_t>(vocab * per_token) * 8);
  std::vector<int64_t> experts(static_cast<size_t>(n_experts));
  for (int64_t t = 0; t < vocab; ++t) {
    std::iota(experts.begin(), experts.end(), int64_t(0));
    for (int64_t i = 0; i < per_token; ++i) {
      const uint64_t draw_index = uint64_t(t * n_experts + i);
      const int64_t j = std::min(n_experts - 1, i + int64_t(d.unit(draw_index) * double(n_experts - i)));
      std::swap(experts[size_t(i)], experts[size_t(j)]);
      put_le(out, size_t(t * per_token + i) * 8, experts[size_t(i)]);
    }
  }
  return out;
}

}  // namespace

// Values by what the tensor is.
std::vector<std::byte> tiny_plain_tensor(const PlannedTensor& t, const Config& c, uint64_t seed, double gate_scale) {
  const Draws d(seed, t.name);
  const int64_t n = numel(t);
  const bool gate = t.name.ends_with(".ffn.gate.weight");
  switch (t.kind) {
    case TensorKind::embedding: return bf16_bytes(draw(d, n, 1.0));
    case TensorKind::bf16_linear:
      return bf16_bytes(draw(d, n, (gate ? gate_scale : 1.0) / std::sqrt(double(t.shape[1]))));
    case TensorKind::norm: return bf16_bytes(draw(d, n, 0.05, 1.0));
    // mixes = (hc_fn . x) / rms(x) over hc_mult * hidden inputs: 0.5 / sqrt(fan_in) keeps them around 0.5.
    case TensorKind::hc_fn: return f32_bytes(draw(d, n, 0.5 / std::sqrt(double(t.shape[1]))));
    case TensorKind::hc_base: return f32_bytes(draw(d, n, 0.1));
    case TensorKind::hc_scale: return f32_bytes(draw(d, n, 0.05, 0.5));
    case TensorKind::ape: return f32_bytes(draw(d, n, 0.1));
    case TensorKind::attn_sink: return f32_bytes(draw(d, n, 0.3));
    case TensorKind::gate_bias: return f32_bytes(draw(d, n, 0.01));
    case TensorKind::hash_table: return hash_table(d, t.shape[0], t.shape[1], c.n_routed_experts);
    default: fail("internal: tensor {} is not a plain tensor", t.name);
  }
}

Fp8Blocks quantize_fp8_blocks(std::span<const float> w, int64_t out, int64_t in) {
  PLUMB_CHECK(int64_t(w.size()) == out * in);
  const int64_t tiles_out = (out + kTile - 1) / kTile, tiles_in = (in + kTile - 1) / kTile;
  Fp8Blocks q{std::vector<uint8_t>(w.size()), std::vector<uint8_t>(size_t(tiles_out * tiles_in))};
  for (int64_t bo = 0; bo < tiles_out; ++bo)
    for (int64_t bi = 0; bi < tiles_in; ++bi) {
      const int64_t r_end = std::min(out, (bo + 1) * kTile), c_end = std::min(in, (bi + 1) * kTile);
      float amax = 0.0f;
      for (int64_t r = bo * kTile; r < r_end; ++r)
        for (int64_t k = bi * kTile; k < c_end; ++k) amax = std::max(amax, std::fabs(w[size_t(r * in + k)]));
      const int e = pow2_scale_exponent(amax, kE4m3Max);
      q.scales[size_t(bo * tiles_in + bi)] = e8m0_from_pow2_exponent(e);
      for (int64_t r = bo * kTile; r < r_end; ++r)
        for (int64_t k = bi * kTile; k < c_end; ++k)
          q.codes[size_t(r * in + k)] = f32_to_e4m3(std::ldexp(w[size_t(r * in + k)], -e));
    }
  return q;
}

Fp4Blocks quantize_fp4_blocks(std::span<const float> w, int64_t out, int64_t in) {
  PLUMB_CHECK(int64_t(w.size()) == out * in && in % kFp4Block == 0);
  Fp4Blocks q{std::vector<uint8_t>(size_t(out * in / 2)), std::vector<uint8_t>(size_t(out * in / kFp4Block))};
  for (int64_t r = 0; r < out; ++r)
    for (int64_t b = 0; b < in / kFp4Block; ++b) {
      const float* block = w.data() + r * in + b * kFp4Block;
      float amax = 0.0f;
      for (int64_t k = 0; k < kFp4Block; ++k) amax = std::max(amax, std::fabs(block[k]));
      const int e = pow2_scale_exponent(amax, kE2m1Max);
      q.scales[size_t(r * (in / kFp4Block) + b)] = e8m0_from_pow2_exponent(e);
      for (int64_t k = 0; k < kFp4Block; k += 2) {
        const uint8_t lo = f32_to_e2m1(std::ldexp(block[k], -e)) & 0x0F;
        const uint8_t hi = f32_to_e2m1(std::ldexp(block[k + 1], -e)) & 0x0F;
        q.packed[size_t((r * in + b * kFp4Block + k) / 2)] = uint8_t(lo | hi << 4);
      }
    }
  return q;
}

std::vector<io::TensorData> generate_tiny_tensors(const Config& config, uint64_t seed, double gate_scale,
                                                  double residual_scale) {
  const std::vector<PlannedTensor> plan = plan_tensors(config);
  std::vector<io::TensorData> out;
  out.reserve(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedTensor& t = plan[i];
    const Draws draws(seed, t.name);
    if (t.kind == TensorKind::fp8_weight || t.kind == TensorKind::fp4_weight) {
      // The plan puts each quantized weight's scale right after it.
      PLUMB_CHECK(i + 1 < plan.size());
      const PlannedTensor& scale = plan[i + 1];
      const bool fp8 = t.kind == TensorKind::fp8_weight;
      PLUMB_CHECK(scale.kind == (fp8 ? TensorKind::fp8_scale : TensorKind::fp4_scale));
      const int64_t rows = t.shape[0], k = fp8 ? t.shape[1] : t.shape[1] * 2;
      const bool branch_out = t.name.ends_with(".wo_b.weight") || t.name.ends_with(".w2.weight");
      const std::vector<float> w = draw(draws, rows * k, (branch_out ? residual_scale : 1.0) / std::sqrt(double(k)));
      if (fp8) {
        const Fp8Blocks q = quantize_fp8_blocks(w, rows, k);
        out.push_back({t.name, t.dtype, t.shape, to_bytes(q.codes)});
        out.push_back({scale.name, scale.dtype, scale.shape, to_bytes(q.scales)});
      } else {
        const Fp4Blocks q = quantize_fp4_blocks(w, rows, k);
        out.push_back({t.name, t.dtype, t.shape, to_bytes(q.packed)});
        out.push_back({scale.name, scale.dtype, scale.shape, to_bytes(q.scales)});
      }
      ++i;
      continue;
    }
    out.push_back({t.name, t.dtype, t.shape, tiny_plain_tensor(t, config, seed, gate_scale)});
  }
  return out;
}

}  // namespace plumb::dsv4
