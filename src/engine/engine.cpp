#include "engine/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "base/error.h"
#include "base/sha256.h"

namespace plumb::engine {

Engine::Engine(model::Model& model, EngineConfig config, TextStreamFactory text)
    : model_(model), config_(std::move(config)), text_(std::move(text)), cache_(config_.cache) {
  const auto& info = model_.info();
  if (config_.parallel < 1 || config_.parallel > info.num_slots)
    fail("--parallel {} must be between 1 and the model's {} slots", config_.parallel, info.num_slots);
  if (config_.prefill_chunk < 1 || config_.prefill_chunk > info.max_rows_per_slot)
    fail("prefill chunk {} must be between 1 and {}", config_.prefill_chunk, info.max_rows_per_slot);
  if (config_.max_rows_per_round < config_.parallel)
    fail("rows per round {} must be at least --parallel {}", config_.max_rows_per_round, config_.parallel);
  if (config_.max_drafts < 0 || config_.max_drafts >= info.max_rows_per_slot)
    fail("--mtp-drafts {} must be between 0 and {}", config_.max_drafts, info.max_rows_per_slot - 1);
  for (int32_t s = config_.parallel - 1; s >= 0; --s) free_slots_.push_back(s);
  if (config_.drafter) drafter_ = config_.drafter();
}

Engine::~Engine() { stop(); }

std::shared_ptr<RequestHandle> Engine::submit(GenerationRequest request) {
  const auto& info = model_.info();
  if (request.prompt.empty()) fail("the prompt is empty");
  for (int32_t id : request.prompt)
    if (id < 0 || id >= info.vocab_size) fail("prompt token id {} is outside the vocabulary [0, {})", id, info.vocab_size);
  if (request.stop.max_tokens < 1) fail("max_tokens must be at least 1, got {}", request.stop.max_tokens);
  const int64_t needed = int64_t(request.prompt.size()) + request.stop.max_tokens;
  if (needed > info.max_context)
    fail("this model's maximum context length is {} tokens; the request needs {} ({} prompt + {} max_tokens)",
         info.max_context, needed, request.prompt.size(), request.stop.max_tokens);
  validate(request.sampling);
  if (!request.stop.stop_strings.empty() && !text_) fail("stop strings need a tokenizer");

  auto seq = std::make_unique<Sequence>();
  seq->request = std::move(request);
  seq->tokens = seq->request.prompt;
  seq->seed = seq->request.sampling.seed ? *seq->request.sampling.seed : seed_from_prompt(seq->request.prompt);
  if (text_) seq->text = text_();
  seq->stop = std::make_unique<StopStringMatcher>(seq->request.stop.stop_strings);
  seq->stats.prompt_tokens = int32_t(seq->request.prompt.size());
  seq->stats.seed = seq->seed;
  seq->stats.submitted = std::chrono::steady_clock::now();

  std::shared_ptr<RequestHandle> handle;
  {
    std::lock_guard lock(queue_mutex_);
    if (int32_t(waiting_.size()) >= config_.max_waiting) throw QueueFull();
    handle = std::make_shared<RequestHandle>(next_id_++);
    seq->handle = handle;
    waiting_.push_back(std::move(seq));
  }
  work_.notify_all();
  return handle;
}

void Engine::drop_cancelled() {
  {
    std::lock_guard lock(queue_mutex_);
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if ((*it)->handle->cancel_requested()) {
        finish(**it, FinishReason::finish_cancelled);
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& seq : running_)
    if (seq->handle->cancel_requested()) finish(*seq, FinishReason::finish_cancelled);
  std::erase_if(running_, [](const auto& s) { return s->state == SequenceState::seq_done; });
  running_count_ = int32_t(running_.size());
}

void Engine::admit_waiting() {
  std::lock_guard lock(queue_mutex_);
  while (!free_slots_.empty() && !waiting_.empty()) {
    auto seq = std::move(waiting_.front());
    waiting_.pop_front();
    seq->slot = free_slots_.back();
    free_slots_.pop_back();
    // Resume from the longest kept prefix; at least the prompt's last token is always run (its logits).
    auto hit = cache_.lookup(seq->request.prompt, seq->prompt_size() - 1);
    bool resumed = false;
    if (hit) {
      try {
        model_.restore(seq->slot, hit->snapshot);
        resumed = true;
      } catch (const std::exception& e) {  // a state this model cannot take: prefill cold, never fail the request
        spdlog::warn("prompt cache: a kept state did not restore ({}); prefilling from the start", e.what());
      }
    }
    if (resumed) {
      seq->prompt_done = int64_t(hit->tokens.size());
      seq->mtp_done = hit->mtp_done;
      seq->stats.cached_tokens = int32_t(hit->tokens.size());
    } else {
      model_.reset_slot(seq->slot);
    }
    for (int64_t p : cache_.keep_points(seq->prompt_size()))
      if (p > seq->prompt_done) seq->keep_points.push_back(p);
    seq->state = SequenceState::seq_prefill;
    running_.push_back(std::move(seq));
  }
  running_count_ = int32_t(running_.size());
}

void Engine::finish(Sequence& seq, FinishReason reason, std::string error) {
  if (seq.state == SequenceState::seq_done) return;
  RequestEvent ev;
  ev.finished = true;
  ev.reason = reason;
  ev.error = std::move(error);
  if (reason != FinishReason::finish_stop || !seq.stop->matched()) {
    if (seq.text) ev.text = seq.stop->push(seq.text->flush());
    ev.text += seq.stop->flush();
  }
  seq.stats.finished = std::chrono::steady_clock::now();
  seq.stats.completion_tokens = int32_t(seq.generated.size());
  seq.stats.token_sha256 = token_sha256(seq.generated);
  ev.stats = seq.stats;
  seq.drafts.clear();
  // The slot is handed out again only at the next round's admission, so its state can still be kept.
  if (seq.slot >= 0) free_slots_.push_back(seq.slot);
  seq.keep_at_finish = cache_.enabled() && seq.slot >= 0 &&
                       (reason == FinishReason::finish_stop || reason == FinishReason::finish_length);
  if (!seq.keep_at_finish) seq.slot = -1;
  seq.state = SequenceState::seq_done;
  {
    std::lock_guard lock(counters_mutex_);
    counters_.requests_finished[int(reason)]++;
    counters_.drafts_proposed += seq.stats.drafts_proposed;
    counters_.drafts_accepted += seq.stats.drafts_accepted;
    auto& by_depth = counters_.accepted_by_depth;
    if (by_depth.size() < seq.stats.accepted_by_depth.size()) by_depth.resize(seq.stats.accepted_by_depth.size(), 0);
    for (size_t d = 0; d < seq.stats.accepted_by_depth.size(); ++d) by_depth[d] += seq.stats.accepted_by_depth[d];
  }
  seq.handle->push(std::move(ev));
}

bool Engine::accept_token(Sequence& seq, int32_t token, std::span<const float> logits) {
  GeneratedToken gen{token, std::nullopt, {}};
  if (seq.request.top_logprobs >= 0) {
    gen.logprob = token_logprob(logits, token);
    gen.top = top_logprobs(logits, seq.request.top_logprobs);
  }
  if (seq.generated.empty()) seq.stats.first_token = std::chrono::steady_clock::now();
  seq.generated.push_back(token);
  seq.tokens.push_back(token);
  RequestEvent ev;
  ev.tokens.push_back(std::move(gen));

  const auto& stop = seq.request.stop;
  const bool is_eos = !stop.ignore_eos && std::find(config_.eos_token_ids.begin(), config_.eos_token_ids.end(),
                                                     token) != config_.eos_token_ids.end();
  const bool is_stop_id = std::find(stop.stop_token_ids.begin(), stop.stop_token_ids.end(), token) !=
                          stop.stop_token_ids.end();
  if (!is_eos && !is_stop_id && seq.text) ev.text = seq.stop->push(seq.text->push(token));

  std::optional<FinishReason> reason;
  if (is_eos || is_stop_id || seq.stop->matched()) {
    reason = FinishReason::finish_stop;
  } else if (int32_t(seq.generated.size()) >= stop.max_tokens ||
             int64_t(seq.tokens.size()) >= model_.info().max_context) {
    reason = FinishReason::finish_length;
  }
  seq.handle->push(std::move(ev));
  if (reason) finish(seq, *reason);
  return !reason;
}

void Engine::run_until_idle() {
  for (;;) {
    if (step()) continue;
    std::lock_guard lock(queue_mutex_);
    if (waiting_.empty() && running_.empty()) return;
  }
}

void Engine::start() {
  if (loop_.joinable()) return;
  stopping_ = false;
  loop_ = std::thread([this] {
    while (!stopping_) {
      bool did = false;
      try {
        did = step();
      } catch (const std::exception& e) {
        spdlog::error("engine: round failed: {}", e.what());
        for (auto& seq : running_) finish(*seq, FinishReason::finish_error, e.what());
        running_.clear();
      }
      if (!did) {
        std::unique_lock lock(queue_mutex_);
        work_.wait_for(lock, std::chrono::milliseconds(50), [&] { return stopping_ || !waiting_.empty(); });
      }
    }
  });
}

void Engine::stop() {
  if (!loop_.joinable()) return;
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  loop_.join();
  for (auto& seq : running_) finish(*seq, FinishReason::finish_cancelled);
  running_.clear();
  std::lock_guard lock(queue_mutex_);
  for (auto& seq : waiting_) finish(*seq, FinishReason::finish_cancelled);
  waiting_.clear();
}

EngineCounters Engine::counters() const {
  EngineCounters c;
  {
    std::lock_guard lock(counters_mutex_);
    c = counters_;
  }
  std::lock_guard lock(queue_mutex_);
  c.waiting = int32_t(waiting_.size());
  c.running = running_count_.load();
  c.cache = cache_.counters();
  return c;
}

}  // namespace plumb::engine
