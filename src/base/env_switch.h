// The engine's A/B switches from the environment (PLUMB_CUDA_GRAPHS, PLUMB_CUDA_PDL, PLUMB_FP8_PAIR,
// PLUMB_FP8_CLUSTER, PLUMB_FP8_BLOCK_SUM, PLUMB_EXPERTS_BY_SIZE, PLUMB_EXPERTS_NO_C, PLUMB_EXPERTS_EVEN,
// PLUMB_EXPERTS_NT2_BOUND, PLUMB_EXPERTS_ADAPT, PLUMB_EXPERTS_COALESCED, PLUMB_EXPERTS_DYNAMIC,
// PLUMB_EXPERTS_SPREAD, PLUMB_EXPERTS_DEAL_FROM_END, PLUMB_EXPERTS_PAIRS_APART,
// PLUMB_DENSE_FOUR_ROWS8, PLUMB_DENSE_ROW_WARPS, PLUMB_DENSE_FP8_MMA, PLUMB_CUDA_LANES, PLUMB_FUSED_ROPE,
// PLUMB_FUSED_MOE_ADD, PLUMB_FUSED_HC_NORM, PLUMB_ATTENTION_SMEM_TREE, PLUMB_FP8_PASS16, PLUMB_INDEXER_ROWS4,
// PLUMB_NORM_FIXED, PLUMB_WO_A_PAIRS): each is on unless its variable is exactly "0". Numbers (env_int):
// PLUMB_LOGIT_HEADS (4, 8 or 16) in attention.cu, PLUMB_INDEXER_COUNT_MAX in ops_attention.cu,
// PLUMB_EXPERTS_ITEM_LOOP (0, 1 or 2) and PLUMB_EXPERTS_GRID_CAP (blocks) in fp4_experts.cu.
#pragma once

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace plumb {

inline bool env_switch_on(const char* name) {
  const char* v = std::getenv(name);
  return !(v && std::string_view(v) == "0");
}

// A whole decimal number from the environment, or fallback where the variable is unset, empty or anything else
// ("NAME=" in a call script means the default; atoi read it as 0).
inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v) return fallback;
  const std::string_view text(v);
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty() ? value : fallback;
}

}  // namespace plumb
