// Every tensor a DeepSeek-V4 config implies, in the release checkpoint format: name, dtype, shape and what it is.
// The checkpoint checker compares a folder against it, `plumb info` sums it, gen-tiny fills it and the weight loader
// reads it. Facts from the release's inference/model.py: FP8 (e4m3) linears carry one E8M0 scale per 128x128 tile
// at `X.scale`; routed experts are FP4 (e2m1, two per byte along K, stored as I8) with one E8M0 scale per 32 K
// values; the CSA compressor (ratio 4) projects to twice the head width (overlapping windows).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/dtype.h"
#include "model/dsv4/config.h"

namespace plumb::dsv4 {

enum class TensorKind : uint8_t {
  fp8_weight,   // F8_E4M3 [out, in]; its scale follows as fp8_scale
  fp8_scale,    // F8_E8M0 [ceil(out/128), ceil(in/128)]
  fp4_weight,   // I8 [out, in/2]: e2m1 pairs, low nibble = even K index; its scale follows as fp4_scale
  fp4_scale,    // F8_E8M0 [out, in/32]
  bf16_linear,  // BF16 [out, in]: gate, compressor wkv/wgate, indexer weights_proj, head
  embedding,    // BF16 [vocab, hidden]
  norm,         // BF16 RMSNorm weight
  hc_fn,        // F32 mHC mixing weights [mix, hc_mult * hidden]
  hc_base,      // F32 [mix]
  hc_scale,     // F32 [3] in blocks, [1] for the head mixes
  ape,          // F32 compressor position bias [ratio, width]
  attn_sink,    // F32 [heads]
  gate_bias,    // F32 [experts], expert choice only
  hash_table,   // I64 tid2eid [vocab, experts_per_token]
};

struct PlannedTensor {
  std::string name;  // release spelling, without a "model." prefix
  DType dtype;
  std::vector<int64_t> shape;
  TensorKind kind;
  int64_t block = -1;   // main layers 0..L-1, then MTP blocks; -1 for model-wide tensors
  int64_t expert = -1;  // routed expert id, -1 otherwise
  uint64_t nbytes() const;
};

// The vocabulary tables (embedding and head): the tensors a set of layers alone does without.
inline bool is_vocab_table(std::string_view name) { return name == "embed.weight" || name == "head.weight"; }

// In a fixed order: model-wide tensors, then block by block (attention, compressor, indexer, MoE, norms, mHC).
std::vector<PlannedTensor> plan_tensors(const Config& config);

struct WeightBytes {
  uint64_t total = 0;  // every planned tensor, MTP included
  std::map<DType, uint64_t> by_dtype;
  uint64_t mtp = 0;  // the part of total in MTP blocks
  // Read by one decoded token at one row through the main model, MTP excluded: every non-routed weight, one row
  // of the embedding and of each hash table, experts_per_token routed experts per block, the head.
  uint64_t per_token = 0;
  // Read by one MTP draft step: the MTP blocks likewise, one embedding row and the (shared) head again.
  uint64_t per_token_mtp = 0;
};
WeightBytes weight_bytes(const Config& config, const std::vector<PlannedTensor>& plan);

}  // namespace plumb::dsv4
