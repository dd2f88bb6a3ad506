// The engine's A/B switches from the environment (PLUMB_CUDA_GRAPHS, PLUMB_CUDA_PDL, PLUMB_FP8_PAIR, PLUMB_FP8_CLUSTER,
// PLUMB_FP8_BLOCK_SUM, PLUMB_EXPERTS_BY_SIZE, PLUMB_EXPERTS_NO_C, PLUMB_EXPERTS_EVEN, PLUMB_EXPERTS_NT2_BOUND,
// PLUMB_EXPERTS_ADAPT, PLUMB_DENSE_FOUR_ROWS8, PLUMB_DENSE_ROW_WARPS, PLUMB_DENSE_FP8_MMA, PLUMB_CUDA_LANES,
// PLUMB_FUSED_ROPE, PLUMB_FUSED_MOE_ADD, PLUMB_FUSED_HC_NORM, PLUMB_ATTENTION_SMEM_TREE, PLUMB_FP8_PASS16,
// PLUMB_INDEXER_ROWS4, PLUMB_WO_A_PAIRS): each is on unless its variable is exactly "0". Numbers (env_int):
// PLUMB_LOGIT_HEADS (4, 8 or 16) in attention.cu, PLUMB_INDEXER_COUNT_MAX in ops_attention.cu.
#pragma once

#include <cstdlib>
#include <string_view>

namespace plumb {

inline bool env_switch_on(const char* name) {
  const char* v = std::getenv(name);
  return !(v && std::string_view(v) == "0");
}

// A number from the environment (atoi's reading), or fallback where the variable is unset.
inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

}  // namespace plumb
