// Seeded weights for tiny DeepSeek-V4 checkpoints, in the release's storage formats. Values are a pure function of
// (seed, tensor name, element index) through Philox, so the bytes are the same on every platform. Scales keep
// activations O(1): linears uniform with standard deviation 1/sqrt(fan_in), norms near 1, mHC weights small.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "io/safetensors_writer.h"
#include "model/dsv4/config.h"
#include "model/dsv4/tensor_plan.h"

namespace plumb::dsv4 {

// Weights [out, in] in float32 -> e4m3 codes [out, in] and one E8M0 scale per 128x128 tile
// [ceil(out/128), ceil(in/128)]: the smallest power of two that brings the tile's max |w| within 448.
struct Fp8Blocks {
  std::vector<uint8_t> codes;
  std::vector<uint8_t> scales;
};
Fp8Blocks quantize_fp8_blocks(std::span<const float> w, int64_t out, int64_t in);

// Weights [out, in] -> e2m1 codes packed two per byte [out, in/2] (low nibble = even K index) and one E8M0 scale
// per 32 consecutive K values [out, in/32]: the smallest power of two that brings the block's max |w| within 6.
struct Fp4Blocks {
  std::vector<uint8_t> packed;
  std::vector<uint8_t> scales;
};
Fp4Blocks quantize_fp4_blocks(std::span<const float> w, int64_t out, int64_t in);

// The bytes of one planned tensor that is not quantized (embedding, bf16 linears, norms, mHC, ape, sinks, gate bias,
// hash table), exactly as generate_tiny_tensors fills it; gate_scale as there.
std::vector<std::byte> tiny_plain_tensor(const PlannedTensor& t, const Config& config, uint64_t seed,
                                         double gate_scale = 1.0);

// Every tensor of plan_tensors(config), filled.
// gate_scale multiplies the router gate's weights (1: the default model; larger: routing choices with clear margins);
// residual_scale multiplies the last projection of every residual branch (attention wo_b, expert w2).
std::vector<io::TensorData> generate_tiny_tensors(const Config& config, uint64_t seed, double gate_scale = 1.0,
                                                  double residual_scale = 1.0);

}  // namespace plumb::dsv4
