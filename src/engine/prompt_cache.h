// Kept prompt states: a slot's complete state at a token boundary, keyed by the tokens before it. A new request
// resumes from the longest kept prefix of its prompt and prefills only the rest; because a resumed slot holds
// exactly the bytes a cold prefill would have produced, the request's tokens do not change (E3).
//
// Memory is bounded by a byte budget with LRU eviction; a state being restored is pinned (shared ownership).
// Evicted states may spill to disk (prompt_cache_spill.h) and are read back, checksummed, instead of prefilled.
#pragma once

#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/model.h"

namespace plumb::engine {

class SpillStore;

struct PromptCacheConfig {
  int64_t budget_bytes = int64_t(2) << 30;  // 0 disables the cache
  int32_t block_tokens = 512;               // intermediate keep points are multiples of this
  int32_t max_points_per_prompt = 8;        // intermediate keeps of one prompt (the latest multiples win)
  std::filesystem::path spill_dir;          // empty: no spill
  int64_t spill_budget_bytes = 0;
  std::string namespace_key;                // model + weights + build + state layout; spilled files carry its hash
};

struct PromptCacheCounters {
  int64_t lookups = 0, hits = 0, hit_tokens = 0;
  int64_t bytes_kept = 0, states_kept = 0, evictions = 0;
  int64_t spill_writes = 0, spill_reads = 0, spill_rejects = 0;
};

struct CachedState {
  std::vector<int32_t> tokens;  // the prefix this state holds
  model::SlotSnapshot snapshot;
  int64_t mtp_done = 0;         // MTP rows had run for positions [0, mtp_done) when it was kept
};

class PromptCache {
 public:
  explicit PromptCache(PromptCacheConfig config);
  ~PromptCache();
  bool enabled() const { return config_.budget_bytes > 0; }

  // The longest kept state whose tokens are a prefix of `prompt`, at most max_tokens long.
  std::shared_ptr<const CachedState> lookup(std::span<const int32_t> prompt, int64_t max_tokens);
  bool contains(std::span<const int32_t> prefix) const;
  void insert(std::shared_ptr<const CachedState> state);

  // Positions inside a prompt of this size where a state is worth keeping (ascending, < prompt_size).
  std::vector<int64_t> keep_points(int64_t prompt_size) const;

  PromptCacheCounters counters() const;

 private:
  struct Entry {
    std::shared_ptr<const CachedState> state;
    std::list<uint64_t>::iterator lru;
  };
  void evict_to_budget();
  static uint64_t prefix_hash_step(uint64_t h, int32_t token);

  PromptCacheConfig config_;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, Entry> entries_;  // prefix hash -> state in memory
  std::unordered_map<int64_t, int64_t> lengths_;  // prefix lengths to probe (memory or spill) -> states
  std::list<uint64_t> lru_;                        // front = most recent
  std::unique_ptr<SpillStore> spill_;
  PromptCacheCounters counters_;
};

}  // namespace plumb::engine
