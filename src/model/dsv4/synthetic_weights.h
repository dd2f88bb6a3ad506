// Synthetic DeepSeek-V4 layer weights of any config's shapes, in the release storage formats, for timing layers
// without a checkpoint (`plumb synth`). Quantized weights are random codes drawn directly, not quantized floats:
// FP8 linears get e4m3 codes of magnitude [0.5, 2) (never NaN) and FP4 experts random e2m1 nibbles, each with one
// E8M0 scale for the whole tensor chosen so a linear's output RMS stays near its input's. The other tensors (norms,
// bf16 linears, mHC, sinks, router bias, hash table) take the tiny generator's values. Routed expert e of every
// block reads the bytes of distinct expert e mod D, so host memory holds D experts once. The vocabulary tables
// (embedding, head) are not generated. Same config, seed and D: same bytes, whatever the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/huge_buffer.h"
#include "model/dsv4/config.h"
#include "model/dsv4/weights.h"

namespace plumb::dsv4 {

// The E8M0 exponent of the synthetic scale for a linear with `fan_in` inputs: 2^e times the codes' RMS times
// sqrt(fan_in) is within a factor sqrt(2) of 1.
int synthetic_fp8_scale_exponent(int64_t fan_in);
int synthetic_fp4_scale_exponent(int64_t fan_in);

class SyntheticWeights {
 public:
  // distinct_experts: 1..n_routed_experts, or 0 for all of them. Generation runs on the default thread pool;
  // progress is called between batches with bytes done and total. Throws plumb::Error for a bad distinct_experts.
  SyntheticWeights(const Config& config, uint64_t seed, int64_t distinct_experts, const WeightProgress& progress = {});

  // The tensor's shape and bytes; throws plumb::Error naming the tensor when the set does not hold it.
  TensorBytes at(const std::string& name) const;
  TensorLookup lookup() const {
    return [this](const std::string& name) { return at(name); };
  }

  int64_t distinct_experts() const { return distinct_experts_; }
  int64_t expert_buffer(int64_t expert) const { return expert % distinct_experts_; }  // the bytes expert e reads
  uint64_t host_bytes() const;

 private:
  struct Stored {
    std::vector<int64_t> shape;
    size_t offset = 0, size = 0;  // in the arena
  };
  HugeBuffer arena_;  // every stored tensor
  std::vector<Stored> stored_;
  std::unordered_map<std::string, size_t> index_;  // tensor name -> stored_ entry (experts share entries)
  int64_t distinct_experts_ = 0;
};

}  // namespace plumb::dsv4
