#include "server/generation.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/error.h"
#include "server/api_error.h"

namespace plumb::server {

engine::GenerationRequest make_engine_request(const GenerationFields& fields, std::vector<int32_t> prompt,
                                              const ServedModel& model, const std::string& prompt_param) {
  const int64_t context = model.max_context;
  const int64_t n = int64_t(prompt.size());
  if (n == 0) throw invalid_request("the prompt is empty", prompt_param);
  if (n >= context)
    throw invalid_request(fmt::format("This model's maximum context length is {} tokens, but the prompt has {} "
                                      "tokens, leaving none to generate. Please shorten the prompt.",
                                      context, n),
                          prompt_param, "context_length_exceeded");
  const int64_t max_tokens = fields.max_tokens.value_or(context - n);
  if (n + max_tokens > context)
    throw invalid_request(fmt::format("This model's maximum context length is {} tokens. However, you requested {} "
                                      "tokens ({} in the prompt, {} for the completion). Please reduce the prompt "
                                      "or max_tokens.",
                                      context, n + max_tokens, n, max_tokens),
                          "max_tokens", "context_length_exceeded");
  const int32_t vocab = model.engine->model_info().vocab_size;
  for (size_t i = 0; i < prompt.size(); ++i)
    if (prompt[i] < 0 || prompt[i] >= vocab)
      throw invalid_request(fmt::format("token id {} at {}[{}] is outside the vocabulary [0, {})", prompt[i],
                                        prompt_param, i, vocab),
                            prompt_param);

  engine::GenerationRequest r;
  r.prompt = std::move(prompt);
  r.sampling = fields.sampling;
  r.stop.max_tokens = int32_t(max_tokens);
  r.stop.stop_strings = fields.stop;
  r.stop.ignore_eos = fields.ignore_eos;
  r.draft = fields.draft;
  r.top_logprobs = fields.top_logprobs;
  return r;
}

Generation::Generation(ServerContext& ctx, const ServedModel& model, engine::GenerationRequest request)
    : ctx_(ctx) {
  try {
    handle_ = model.engine->submit(std::move(request));
  } catch (const engine::QueueFull&) {
    ctx_.metrics.queue_rejected();
    ApiError e(503, "server_error", "the request queue is full; retry later", "", "queue_full");
    e.retry_after_s = 1;
    throw e;
  } catch (const plumb::Error& e) {
    throw invalid_request(e.what());
  }
  ctx_.request_started();
}

Generation::~Generation() {
  if (!finished_) {
    handle_->cancel();
    // The engine answers a cancel at its next round; wait for the last event so the metrics count this request.
    while (!finished_) next(std::chrono::milliseconds(1000));
  }
  ctx_.request_ended();
}

void Generation::cancel() { handle_->cancel(); }

std::optional<engine::RequestEvent> Generation::next(std::chrono::milliseconds timeout) {
  auto ev = handle_->next_event(timeout);
  if (!ev) return ev;
  if (!ev->tokens.empty()) {
    const double k = double(ev->tokens.size());
    if (last_token_at_) {
      const double gap = std::chrono::duration<double>(ev->emitted - *last_token_at_).count() / k;
      for (size_t i = 0; i < ev->tokens.size(); ++i) record_.token_gaps_s.push_back(gap);
    }
    last_token_at_ = ev->emitted;
  }
  if (ev->finished) {
    finished_ = true;
    record_.reason = ev->reason;
    record_.stats = ev->stats;
    ctx_.metrics.record(record_);
    if (ev->reason == engine::FinishReason::finish_error) spdlog::error("request failed: {}", ev->error);
  }
  return ev;
}

engine::RequestEvent run_to_end(Generation& gen, const ClientSocket& client) {
  engine::RequestEvent all;
  bool cancelled = false;
  while (!gen.finished()) {
    auto ev = gen.next(kClientPollInterval);
    if (!cancelled && client.peer_closed()) {
      gen.cancel();
      cancelled = true;
    }
    if (ev) engine::join_event(all, std::move(*ev));
  }
  if (unfinished(all)) throw unfinished_error(all);
  return all;
}

bool unfinished(const engine::RequestEvent& last) {
  return last.reason == engine::FinishReason::finish_cancelled || last.reason == engine::FinishReason::finish_error;
}

ApiError unfinished_error(const engine::RequestEvent& last) {
  if (last.reason == engine::FinishReason::finish_cancelled)
    return ApiError(503, "server_error", "the request was cancelled: the server is shutting down", "",
                    "shutting_down");
  return ApiError(500, "server_error", "generation failed: " + last.error, "", "generation_failed");
}

}  // namespace plumb::server
