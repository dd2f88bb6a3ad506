// DeepSeek-V4 weights, typed and in their release storage formats (FP8 blocks, FP4 blocks, bf16, f32, i64), resident
// where the backend computes. Building reads each tensor's host bytes through a lookup by name (a checkpoint folder,
// or synthetic bytes) and hands it to the backend; loading a folder checks it against the tensor plan first (every
// problem named with its tensor and file). Shapes are in the comments as [out, in].
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "io/checkpoint_folder.h"
#include "kernels/backend.h"
#include "model/dsv4/config.h"

namespace plumb::dsv4 {

using kernels::CompressorWeights;
using kernels::ExpertWeights;
using kernels::HcWeights;
using kernels::RouterWeights;
using kernels::Weight;

struct AttentionWeights {
  Weight wq_a;    // fp8 [q_lora_rank, hidden]
  Weight q_norm;  // bf16 [q_lora_rank]
  Weight wq_b;    // fp8 [heads * head_dim, q_lora_rank]
  Weight wkv;     // fp8 [head_dim, hidden]
  Weight kv_norm; // bf16 [head_dim]
  Weight wo_a;    // fp8 [o_groups * o_lora_rank, heads * head_dim / o_groups]
  Weight wo_b;    // fp8 [hidden, o_groups * o_lora_rank]
  Weight sinks;   // f32 [heads]
  CompressorWeights compressor;        // ratio > 0
  Weight index_wq_b;                   // CSA: fp8 [index_heads * index_head_dim, q_lora_rank]
  Weight index_weights_proj;           // CSA: bf16 [index_heads, hidden]
  CompressorWeights index_compressor;  // CSA
};

// The MTP block's extra tensors (its input projections and its own output norm and head mixes).
struct MtpWeights {
  Weight e_proj, h_proj;        // fp8 [hidden, hidden]
  Weight enorm, hnorm, norm;    // bf16 [hidden]
  HcWeights hc_head;
};

struct BlockWeights {
  Weight attn_norm, ffn_norm;  // bf16 [hidden]
  HcWeights hc_attn, hc_ffn;
  AttentionWeights attn;
  RouterWeights router;
  std::vector<ExpertWeights> experts;  // fp4
  ExpertWeights shared;                // fp8
  MtpWeights mtp;                      // MTP blocks only
};

struct ModelWeights {
  Weight embed;  // bf16 [vocab, hidden]
  Weight head;   // bf16 [vocab, hidden]
  Weight norm;   // bf16 [hidden]
  HcWeights hc_head;
  std::vector<BlockWeights> blocks;  // main blocks, then MTP blocks
};

using WeightProgress = std::function<void(int64_t done, int64_t total, const std::string& what)>;

// A tensor's shape and host bytes in its release storage format.
struct TensorBytes {
  std::vector<int64_t> shape;
  std::span<const std::byte> bytes;
};
// The bytes of a tensor by its release name; throws plumb::Error naming the tensor when there are none.
using TensorLookup = std::function<TensorBytes(const std::string& name)>;

// Whether to build the vocabulary tables (embedding and head); layers alone need neither.
enum class VocabTables : uint8_t { build, skip };

// Hands every tensor of the config's plan to the backend, reading it through `lookup`, which must give the plan's
// dtypes and shapes. Identical host bytes (same pointer, format and shape) are uploaded once and the weight reused,
// so aliased synthetic tensors stay aliased where the backend computes. The bytes must outlive the weights (host
// backends use them in place). Throws plumb::Error naming the tensor whose byte count does not fit its shape.
ModelWeights build_weights(const TensorLookup& lookup, const Config& config, kernels::Backend& backend,
                           const WeightProgress& progress = {}, VocabTables vocab = VocabTables::build);

// Throws plumb::Error listing every problem (missing tensor, wrong dtype or shape, bad hash table), each with its
// tensor name and file; then build_weights reads the folder's tensors. The folder must outlive the weights (host
// backends use its mapped bytes in place).
ModelWeights load_weights(const io::CheckpointFolder& folder, const Config& config, kernels::Backend& backend,
                          const WeightProgress& progress = {});

}  // namespace plumb::dsv4
