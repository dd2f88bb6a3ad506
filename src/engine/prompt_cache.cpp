#include "engine/prompt_cache.h"

#include <algorithm>

#include "engine/prompt_cache_spill.h"

namespace plumb::engine {

PromptCache::PromptCache(PromptCacheConfig config) : config_(std::move(config)) {
  if (enabled() && !config_.spill_dir.empty() && config_.spill_budget_bytes > 0) {
    spill_ = std::make_unique<SpillStore>(config_.spill_dir, config_.spill_budget_bytes, config_.namespace_key);
    for (auto [key, tokens] : spill_->known()) lengths_[tokens]++;
  }
}

PromptCache::~PromptCache() = default;

uint64_t PromptCache::prefix_hash_step(uint64_t h, int32_t token) {
  // FNV-1a over the token's bytes then a mix; collisions are harmless (tokens are compared on a hit).
  for (int i = 0; i < 4; ++i) h = (h ^ ((uint32_t(token) >> (8 * i)) & 0xff)) * 1099511628211ull;
  return h ^ (h >> 29);
}

std::vector<int64_t> PromptCache::keep_points(int64_t prompt_size) const {
  std::vector<int64_t> points;
  if (!enabled() || config_.block_tokens <= 0) return points;
  for (int64_t p = config_.block_tokens; p < prompt_size - 1; p += config_.block_tokens) points.push_back(p);
  if (int64_t(points.size()) > config_.max_points_per_prompt)
    points.erase(points.begin(), points.end() - config_.max_points_per_prompt);
  return points;
}

std::shared_ptr<const CachedState> PromptCache::lookup(std::span<const int32_t> prompt, int64_t max_tokens) {
  std::lock_guard lock(mutex_);
  if (!enabled()) return nullptr;
  counters_.lookups++;
  const int64_t limit = std::min<int64_t>(max_tokens, int64_t(prompt.size()));
  std::vector<uint64_t> hashes(size_t(limit) + 1);
  hashes[0] = 1469598103934665603ull;
  for (int64_t i = 0; i < limit; ++i) hashes[size_t(i) + 1] = prefix_hash_step(hashes[size_t(i)], prompt[size_t(i)]);
  std::vector<int64_t> lengths;
  for (const auto& [len, count] : lengths_)
    if (len <= limit && len > 0) lengths.push_back(len);
  std::sort(lengths.rbegin(), lengths.rend());
  for (int64_t len : lengths) {
    const uint64_t key = hashes[size_t(len)];
    std::shared_ptr<const CachedState> state;
    if (auto it = entries_.find(key); it != entries_.end()) {
      const auto& t = it->second.state->tokens;
      if (int64_t(t.size()) == len && std::equal(t.begin(), t.end(), prompt.begin())) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        state = it->second.state;
      }
    } else if (spill_ && spill_->has(key)) {
      auto read = spill_->read(key, prompt);
      if (!read) {
        if (--lengths_[len] == 0) lengths_.erase(len);
        continue;
      }
      if (int64_t(read->tokens.size()) != len) continue;
      state = read;
      spill_->forget(key);  // it lives in memory again, under the same length
      auto& e = entries_[key];
      e.state = state;
      lru_.push_front(key);
      e.lru = lru_.begin();
      counters_.bytes_kept += int64_t(state->snapshot.bytes.size());
      counters_.states_kept++;
      evict_to_budget();
    }
    if (state) {
      counters_.hits++;
      counters_.hit_tokens += len;
      return state;
    }
  }
  return nullptr;
}

bool PromptCache::contains(std::span<const int32_t> prefix) const {
  std::lock_guard lock(mutex_);
  uint64_t h = 1469598103934665603ull;
  for (int32_t t : prefix) h = prefix_hash_step(h, t);
  auto it = entries_.find(h);
  if (it != entries_.end()) {
    const auto& t = it->second.state->tokens;
    return t.size() == prefix.size() && std::equal(t.begin(), t.end(), prefix.begin());
  }
  return spill_ && spill_->has(h);
}

void PromptCache::insert(std::shared_ptr<const CachedState> state) {
  std::lock_guard lock(mutex_);
  if (!enabled() || state->tokens.empty()) return;
  if (int64_t(state->snapshot.bytes.size()) > config_.budget_bytes) return;
  uint64_t h = 1469598103934665603ull;
  for (int32_t t : state->tokens) h = prefix_hash_step(h, t);
  if (auto it = entries_.find(h); it != entries_.end()) {
    counters_.bytes_kept -= int64_t(it->second.state->snapshot.bytes.size());
    counters_.states_kept--;
    lru_.erase(it->second.lru);
    entries_.erase(it);
    lengths_[int64_t(state->tokens.size())]--;
  }
  if (spill_ && spill_->has(h)) {
    spill_->forget(h);
    lengths_[int64_t(state->tokens.size())]--;
  }
  lru_.push_front(h);
  entries_[h] = {state, lru_.begin()};
  lengths_[int64_t(state->tokens.size())]++;
  counters_.bytes_kept += int64_t(state->snapshot.bytes.size());
  counters_.states_kept++;
  evict_to_budget();
}

void PromptCache::evict_to_budget() {
  auto it = lru_.end();
  while (counters_.bytes_kept > config_.budget_bytes && it != lru_.begin()) {
    --it;
    auto e = entries_.find(*it);
    if (e->second.state.use_count() > 1) continue;  // pinned: being restored right now
    const int64_t len = int64_t(e->second.state->tokens.size());
    if (spill_) {
      spill_->write(e->first, *e->second.state);
    }
    if (!spill_ || !spill_->has(e->first)) {
      if (--lengths_[len] == 0) lengths_.erase(len);
    }
    counters_.bytes_kept -= int64_t(e->second.state->snapshot.bytes.size());
    counters_.states_kept--;
    counters_.evictions++;
    entries_.erase(e);
    it = lru_.erase(it);
  }
}

PromptCacheCounters PromptCache::counters() const {
  std::lock_guard lock(mutex_);
  PromptCacheCounters c = counters_;
  if (spill_) {
    c.spill_writes = spill_->writes;
    c.spill_reads = spill_->reads;
    c.spill_rejects = spill_->rejects;
  }
  return c;
}

}  // namespace plumb::engine
