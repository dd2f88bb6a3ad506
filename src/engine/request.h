// What a caller hands the engine (GenerationRequest) and what it gets back (events on a RequestHandle).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/sampling.h"

namespace plumb::engine {

enum class FinishReason {
  finish_stop,       // EOS, a stop token id or a stop string
  finish_length,     // max_tokens or the context limit
  finish_cancelled,  // cancelled by the caller (or its client disconnected)
  finish_error,      // the round failed for this request; the message says why
};
std::string_view finish_reason_name(FinishReason r);  // "stop", "length", "cancelled", "error"

struct StopParams {
  int32_t max_tokens = 16;
  std::vector<int32_t> stop_token_ids;    // besides the model's EOS ids
  std::vector<std::string> stop_strings;  // the text stops before the first match
  bool ignore_eos = false;
};

struct GenerationRequest {
  std::vector<int32_t> prompt;
  SamplingParams sampling;
  StopParams stop;
  bool draft = true;         // speculative drafts allowed (never changes the tokens)
  int32_t top_logprobs = -1;  // -1: no logprobs; n >= 0: the sampled token's logprob and the n most likely
};

struct GeneratedToken {
  int32_t id = 0;
  std::optional<TokenLogprob> logprob;
  std::vector<TokenLogprob> top;
};

struct RequestStats {
  int32_t prompt_tokens = 0;
  int32_t cached_tokens = 0;      // prompt tokens resumed from the prompt cache
  int32_t completion_tokens = 0;  // generated tokens, the stop token included
  int64_t drafts_proposed = 0;
  int64_t drafts_accepted = 0;
  std::vector<int64_t> accepted_by_depth;  // [d]: drafts accepted at depth d+1
  uint64_t seed = 0;
  std::string token_sha256;  // SHA-256 of the generated ids as little-endian uint32
  std::chrono::steady_clock::time_point submitted, first_token, finished;
};

// One step of a request's output: new tokens and the text they complete. The last event has finished set.
struct RequestEvent {
  std::vector<GeneratedToken> tokens;
  std::string text;
  bool finished = false;
  FinishReason reason = FinishReason::finish_stop;
  std::string error;
  RequestStats stats;  // filled on the last event
  std::chrono::steady_clock::time_point emitted;  // when the engine pushed it (inter-token latency metrics)
};

// Joins `ev` onto `all`: tokens and text appended; the finishing fields (reason, error, stats) from the last event.
void join_event(RequestEvent& all, RequestEvent&& ev);

// The caller's side of a submitted request: a queue of events, and cancel().
class RequestHandle {
 public:
  explicit RequestHandle(uint64_t id) : id_(id) {}
  uint64_t id() const { return id_; }

  void cancel() { cancelled_.store(true); }
  bool cancel_requested() const { return cancelled_.load(); }

  // Waits up to `timeout` for the next event.
  std::optional<RequestEvent> next_event(std::chrono::milliseconds timeout);
  // Blocks until finished; returns every event's tokens and text joined, with the final stats.
  RequestEvent wait_all();
  bool finished() const;

  void push(RequestEvent ev);  // engine side

 private:
  const uint64_t id_;
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<RequestEvent> events_;
  bool finished_ = false;
};

}  // namespace plumb::engine
