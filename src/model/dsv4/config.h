// DeepSeek-V4 hyperparameters from a config.json: the release's fields (compress_ratios, num_hash_layers,
// qk_rope_head_dim, rope_scaling) or HF transformers' deepseek_v4 fields (layer_types + compress_rates,
// mlp_layer_types, partial_rotary_factor, rope_parameters). Blocks are numbered as in the release: the main layers
// 0..num_layers-1, then the MTP blocks. Every validation error names the config field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace plumb::dsv4 {

// Attention kind by compress ratio (release rule): 0 = sliding window only, 4 = CSA (overlapping compressor and
// lightning indexer), any other ratio = HCA (all compressed rows attended).
enum class AttentionKind : uint8_t { window, csa, hca };
const char* attention_kind_name(AttentionKind kind);  // "window", "CSA", "HCA"
AttentionKind attention_kind_for_ratio(int ratio);

struct BlockSpec {
  AttentionKind attention = AttentionKind::window;
  int compress_ratio = 0;    // 0 for window-only blocks
  bool hash_routed = false;  // experts from the token-id table tid2eid instead of top-k of the gate
  bool mtp = false;
};

struct Config {
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;      // main blocks
  int64_t num_mtp_layers = 0;  // MTP blocks after them
  int64_t num_heads = 0;
  int64_t head_dim = 0;
  int64_t rope_head_dim = 0;  // the last rope_head_dim dims of each head are rotated
  int64_t q_lora_rank = 0;
  int64_t o_groups = 0;
  int64_t o_lora_rank = 0;
  int64_t sliding_window = 0;
  int64_t n_routed_experts = 0;
  int64_t n_shared_experts = 1;
  int64_t experts_per_token = 0;
  int64_t moe_inter_dim = 0;
  int64_t index_n_heads = 0;
  int64_t index_head_dim = 0;
  int64_t index_topk = 0;
  int64_t hc_mult = 0;
  int64_t hc_sinkhorn_iters = 20;
  double hc_eps = 1e-6;
  double rms_norm_eps = 1e-6;
  double routed_scaling_factor = 1.0;
  double swiglu_limit = 0.0;
  std::string scoring_func = "sqrtsoftplus";
  double rope_theta = 10000.0;           // window-only blocks
  double compress_rope_theta = 10000.0;  // compressed blocks, with YaRN below
  double rope_factor = 1.0;
  int64_t rope_original_max_position = 0;  // 0: no YaRN
  double rope_beta_fast = 32.0;
  double rope_beta_slow = 1.0;
  int64_t max_position_embeddings = 0;
  int64_t bos_token_id = 0;
  int64_t eos_token_id = 1;
  std::vector<BlockSpec> blocks;  // num_layers + num_mtp_layers entries

  // Parses and validates; throws plumb::Error naming the field ("config.json: compress_ratios[3] ...").
  static Config from_json(const nlohmann::json& json, const std::string& label = "config.json");
  // The release's config.json fields (as in DeepSeek-V4-Flash's), which from_json reads back to an equal Config.
  nlohmann::json to_json() const;

  int64_t num_blocks() const { return int64_t(blocks.size()); }
  int64_t count_blocks(AttentionKind kind, bool mtp = false) const;
  int64_t num_hash_layers() const;
  // "layers.L." for main blocks, "mtp.I." for MTP blocks.
  std::string block_prefix(int64_t block) const;
};

}  // namespace plumb::dsv4
