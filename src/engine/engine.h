// The lane engine: requests wait in a queue, take a slot, and advance in shared rounds. A round is one forward
// launch over rows from several slots (prompt chunks, next tokens); after it each slot samples its rows.
// Because every row's result depends only on its own slot (model.h), a request's tokens are the same whatever
// else shares its rounds (E1), however its prompt is chunked (E4), and run after run (E5).
//
// Use: submit() from any thread; either call step() yourself (tests) or start() a loop thread (server).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/drafts.h"
#include "engine/prompt_cache.h"
#include "engine/request.h"
#include "engine/sequence.h"
#include "engine/text_stream.h"
#include "model/model.h"

namespace plumb::engine {

// The engine's default: no prompt states kept (serve turns the cache on with its budget).
inline PromptCacheConfig no_prompt_cache() {
  PromptCacheConfig c;
  c.budget_bytes = 0;
  return c;
}

struct EngineConfig {
  int32_t parallel = 4;             // slots in use (<= the model's slots)
  int32_t max_rows_per_round = 64;  // bound on rows in one launch
  int32_t prefill_chunk = 32;       // most prompt rows one request adds in a round
  int32_t max_waiting = 1024;       // queued requests beyond this are refused (QueueFull)
  std::vector<int32_t> eos_token_ids;

  int32_t max_drafts = 3;       // --mtp-drafts K: most drafts per stream per round; 0 turns drafting off
  bool mtp_drafts = true;       // propose with the model's MTP head (when it has one)
  bool context_drafts = true;   // propose by copying from the request's own context
  bool adaptive_depth = true;   // choose depth from measured costs and acceptance (off: always the most)
  DrafterFactory drafter;       // replaces the built-in proposers (tests)

  PromptCacheConfig cache = no_prompt_cache();  // kept prompt states (off unless a budget is given)
};

// Thrown by submit() when the waiting queue is full (the server answers 503 with Retry-After).
class QueueFull : public std::runtime_error {
 public:
  QueueFull() : std::runtime_error("the request queue is full") {}
};

struct EngineCounters {
  int64_t rounds = 0, rows = 0;
  int64_t prompt_tokens = 0, generation_tokens = 0;
  int64_t requests_finished[4] = {0, 0, 0, 0};  // by FinishReason
  int64_t drafts_proposed = 0, drafts_accepted = 0;
  std::vector<int64_t> accepted_by_depth;
  int32_t running = 0, waiting = 0;
  PromptCacheCounters cache;
};

class Engine {
 public:
  Engine(model::Model& model, EngineConfig config, TextStreamFactory text = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Validates and queues a request. Throws plumb::Error for a request that can never run (empty prompt,
  // prompt + max_tokens past the context, bad sampling values) and QueueFull when the queue is full.
  std::shared_ptr<RequestHandle> submit(GenerationRequest request);

  // One round: drop cancelled requests, admit waiting ones, run one launch, sample, emit events.
  // Returns false when there was nothing to do.
  bool step();
  void run_until_idle();

  void start();  // a background thread calling step() while there is work
  void stop();   // finishes the loop thread; running requests are cancelled

  EngineCounters counters() const;
  PromptCache& prompt_cache() { return cache_; }
  const EngineConfig& config() const { return config_; }
  const model::ModelInfo& model_info() const { return model_.info(); }

 private:
  struct RoundRows;
  void admit_waiting();
  void drop_cancelled();
  void finish(Sequence& seq, FinishReason reason, std::string error = {});
  // Records a sampled token; returns false when it finished the request.
  bool accept_token(Sequence& seq, int32_t token, std::span<const float> logits);
  bool drafting_on() const { return config_.max_drafts > 0; }
  bool mtp_on() const { return drafting_on() && config_.mtp_drafts && !config_.drafter && model_.info().has_mtp; }
  int32_t draft_room(const Sequence& seq) const;
  void plan_round(RoundRows& plan);
  void verify_stream(Sequence& seq, const RoundRows& plan, size_t first_row, int32_t drafts);
  void run_mtp(std::vector<Sequence*>& streams, bool prompt_only);
  void keep_state(Sequence& seq);  // puts the slot's state into the prompt cache

  model::Model& model_;
  const EngineConfig config_;
  TextStreamFactory text_;

  mutable std::mutex queue_mutex_;
  std::condition_variable work_;
  std::deque<std::unique_ptr<Sequence>> waiting_;
  uint64_t next_id_ = 1;

  std::vector<std::unique_ptr<Sequence>> running_;  // engine thread only
  std::atomic<int32_t> running_count_{0};
  std::vector<int32_t> free_slots_;
  size_t prefill_cursor_ = 0;  // round-robin start among prefilling requests

  mutable std::mutex counters_mutex_;
  EngineCounters counters_;

  std::thread loop_;
  std::atomic<bool> stopping_{false};
  std::vector<float> logits_, draft_logits_;
  std::unique_ptr<Drafter> drafter_;
  RoundCostModel target_cost_, mtp_cost_;
  PromptCache cache_;
};

}  // namespace plumb::engine
