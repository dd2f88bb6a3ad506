// DeepSeek-V4-Flash's config.json, field by field.
#include "model/dsv4/release_config.h"

namespace plumb::dsv4 {

Config release_flash_config() {
  Config c;
  c.vocab_size = 129280;
  c.hidden_size = 4096;
  c.num_layers = 43;
  c.num_mtp_layers = 1;
  c.num_heads = 64;
  c.head_dim = 512;
  c.rope_head_dim = 64;
  c.q_lora_rank = 1024;
  c.o_groups = 8;
  c.o_lora_rank = 1024;
  c.sliding_window = 128;
  c.n_routed_experts = 256;
  c.n_shared_experts = 1;
  c.experts_per_token = 6;
  c.moe_inter_dim = 2048;
  c.index_n_heads = 64;
  c.index_head_dim = 128;
  c.index_topk = 512;
  c.hc_mult = 4;
  c.hc_sinkhorn_iters = 20;
  c.hc_eps = 1e-6;
  c.rms_norm_eps = 1e-6;
  c.routed_scaling_factor = 1.5;
  c.swiglu_limit = 10.0;
  c.scoring_func = "sqrtsoftplus";
  c.rope_theta = 10000;
  c.compress_rope_theta = 160000;
  c.rope_factor = 16;
  c.rope_original_max_position = 65536;
  c.rope_beta_fast = 32;
  c.rope_beta_slow = 1;
  c.max_position_embeddings = 1048576;
  c.bos_token_id = 0;
  c.eos_token_id = 1;

  constexpr int64_t kHashLayers = 3;
  for (int64_t i = 0; i < c.num_layers + c.num_mtp_layers; ++i) {
    BlockSpec b;
    b.mtp = i >= c.num_layers;
    // compress_ratios: 0, 0, then 4 on even and 128 on odd layers; the MTP block is window-only.
    b.compress_ratio = b.mtp || i < 2 ? 0 : i % 2 == 0 ? 4 : 128;
    b.attention = attention_kind_for_ratio(b.compress_ratio);
    b.hash_routed = !b.mtp && i < kHashLayers;
    c.blocks.push_back(b);
  }
  return c;
}

}  // namespace plumb::dsv4
