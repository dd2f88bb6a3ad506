// Generating the synthetic set: the plan is cut into fill jobs (random code chunks keyed by tensor and chunk index,
// constant scales, tiny-generator tensors) run in batches on the thread pool.
#include "model/dsv4/synthetic_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

#include "base/error.h"
#include "base/huge_buffer.h"
#include "base/number_formats.h"
#include "base/rng.h"
#include "base/thread_pool.h"
#include "model/dsv4/tensor_plan.h"
#include "model/dsv4/tiny_weights.h"

namespace plumb::dsv4 {
namespace {

constexpr size_t kChunkBytes = size_t(1) << 20;  // random codes are drawn per chunk, so any thread count agrees
constexpr size_t kAlign = 64;
// RMS of the codes as drawn: e4m3 with exponent field 6 or 7 (magnitudes [0.5, 1.875]); e2m1 uniform over all 16.
constexpr double kFp8CodeRms = 1.1589;
constexpr double kFp4CodeRms = 2.9262;

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ uint8_t(c)) * 1099511628211ull;
  return h;
}

// Keeps sign and mantissa bits and sets the e4m3 exponent field to 6 or 7 (bit 3 stays random), byte by byte.
uint64_t fp8_codes_from_bits(uint64_t bits) { return (bits & 0x8F8F8F8F8F8F8F8Full) | 0x3030303030303030ull; }

enum class Fill : uint8_t { fp8_codes, random_bytes, constant, tiny };

struct Job {
  size_t stored;
  Fill fill;
  size_t begin = 0, end = 0;  // byte range (code fills)
  uint64_t stream = 0;        // code fills: the stored tensor's key hash
  uint8_t value = 0;          // constant fills
  const PlannedTensor* planned = nullptr;  // tiny fills
};

void fill_codes(std::byte* out, const Job& job, uint64_t seed) {
  uint64_t state = seed ^ job.stream ^ (uint64_t(job.begin / kChunkBytes) * 0xd1342543de82ef95ull);
  const bool fp8 = job.fill == Fill::fp8_codes;
  auto draw = [&] {
    const uint64_t bits = splitmix64(state);
    return fp8 ? fp8_codes_from_bits(bits) : bits;
  };
  size_t at = job.begin;
  for (; at + 8 <= job.end; at += 8) {
    const uint64_t word = draw();
    std::memcpy(out + at, &word, 8);
  }
  if (at < job.end) {
    const uint64_t word = draw();
    std::memcpy(out + at, &word, job.end - at);
  }
}

}  // namespace

int synthetic_fp8_scale_exponent(int64_t fan_in) {
  return -int(std::lround(std::log2(kFp8CodeRms * std::sqrt(double(fan_in)))));
}
int synthetic_fp4_scale_exponent(int64_t fan_in) {
  return -int(std::lround(std::log2(kFp4CodeRms * std::sqrt(double(fan_in)))));
}

SyntheticWeights::SyntheticWeights(const Config& config, uint64_t seed, int64_t distinct_experts,
                                   const WeightProgress& progress) {
  if (distinct_experts < 0 || distinct_experts > config.n_routed_experts)
    fail("synthetic weights: distinct experts must be between 1 and n_routed_experts ({}), or 0 for all (got {})",
         config.n_routed_experts, distinct_experts);
  distinct_experts_ = distinct_experts == 0 ? config.n_routed_experts : distinct_experts;

  const std::vector<PlannedTensor> plan = plan_tensors(config);
  std::vector<Job> jobs;
  std::unordered_map<std::string, size_t> by_key;  // stored tensor key -> stored_ entry
  uint64_t total = 0;       // bytes to fill
  size_t arena_bytes = 0;   // the stored tensors, each aligned to kAlign
  int64_t fan_in = 0;  // of the last quantized weight: its scale follows it in the plan
  for (const PlannedTensor& t : plan) {
    if (is_vocab_table(t.name)) continue;
    std::string key = t.name;
    if (t.expert >= 0) {  // layers.B.ffn.experts.E.w1.weight -> experts.(E mod D).w1.weight
      const std::string prefix = config.block_prefix(t.block) + "ffn.experts." + std::to_string(t.expert) + ".";
      PLUMB_CHECK(t.name.starts_with(prefix));
      key = "experts." + std::to_string(expert_buffer(t.expert)) + "." + t.name.substr(prefix.size());
    }
    if (t.kind == TensorKind::fp8_weight) fan_in = t.shape[1];
    if (t.kind == TensorKind::fp4_weight) fan_in = 2 * t.shape[1];
    const auto found = by_key.find(key);
    if (found != by_key.end()) {
      index_.emplace(t.name, found->second);
      continue;
    }
    const size_t s = stored_.size();
    const size_t size = t.nbytes();
    stored_.push_back({t.shape, arena_bytes, size});
    by_key.emplace(key, s);
    index_.emplace(t.name, s);
    total += size;
    arena_bytes += (size + kAlign - 1) / kAlign * kAlign;
    switch (t.kind) {
      case TensorKind::fp8_weight:
      case TensorKind::fp4_weight: {
        const Fill fill = t.kind == TensorKind::fp8_weight ? Fill::fp8_codes : Fill::random_bytes;
        for (size_t begin = 0; begin < size; begin += kChunkBytes)
          jobs.push_back({.stored = s, .fill = fill, .begin = begin, .end = std::min(size, begin + kChunkBytes),
                          .stream = fnv1a64(key)});
        break;
      }
      case TensorKind::fp8_scale:
      case TensorKind::fp4_scale: {
        const bool fp8 = t.kind == TensorKind::fp8_scale;
        const int e = fp8 ? synthetic_fp8_scale_exponent(fan_in) : synthetic_fp4_scale_exponent(fan_in);
        jobs.push_back({.stored = s, .fill = Fill::constant, .end = size, .value = e8m0_from_pow2_exponent(e)});
        break;
      }
      default: jobs.push_back({.stored = s, .fill = Fill::tiny, .end = size, .planned = &t}); break;
    }
  }

  arena_ = HugeBuffer(arena_bytes);

  ThreadPool& pool = default_thread_pool();
  const size_t batch = pool.threads() * 8;
  uint64_t done = 0;
  for (size_t first = 0; first < jobs.size(); first += batch) {
    const size_t count = std::min(batch, jobs.size() - first);
    pool.run(count, [&](size_t i) {
      const Job& job = jobs[first + i];
      std::byte* out = arena_.data() + stored_[job.stored].offset;
      switch (job.fill) {
        case Fill::fp8_codes:
        case Fill::random_bytes: fill_codes(out, job, seed); break;
        case Fill::constant: std::memset(out, job.value, job.end); break;
        case Fill::tiny: {
          const std::vector<std::byte> bytes = tiny_plain_tensor(*job.planned, config, seed);
          PLUMB_CHECK(bytes.size() == job.end);
          std::memcpy(out, bytes.data(), bytes.size());
          break;
        }
      }
    });
    for (size_t i = first; i < first + count; ++i) done += jobs[i].end - jobs[i].begin;
    if (progress) progress(int64_t(done), int64_t(total), "synthetic weights");
  }
}

TensorBytes SyntheticWeights::at(const std::string& name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) {
    if (is_vocab_table(name))
      fail("synthetic weights: {} is not generated (the synthetic set holds the layers, not the vocabulary tables)",
           name);
    fail("synthetic weights: no tensor named {} in this config's plan", name);
  }
  const Stored& s = stored_[it->second];
  return {s.shape, std::span<const std::byte>(arena_.data() + s.offset, s.size)};
}

uint64_t SyntheticWeights::host_bytes() const {
  uint64_t n = 0;
  for (const Stored& s : stored_) n += s.size;
  return n;
}

}  // namespace plumb::dsv4
