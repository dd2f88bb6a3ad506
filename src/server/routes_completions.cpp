// POST /v1/completions: a prompt as text (special-token text becomes the special token) or as token ids,
// generated as is (no chat encoding); whole, or streamed as SSE chunks.
#include <spdlog/spdlog.h>

#include <memory>

#include "server/api_error.h"
#include "server/generation.h"
#include "server/openai_request.h"
#include "server/openai_response.h"
#include "server/request_prompt.h"
#include "server/routes.h"
#include "server/sse_writer.h"

namespace plumb::server {
namespace {

struct CompletionJob {
  CompletionRequest request;
  ReplyHeader header;
  std::unique_ptr<Generation> generation;
};

// Streams the reply to its end; false when it ended early (the client left, or a write failed).
bool stream_reply(CompletionJob& job, const ServedModel& m, SseWriter& out) {
  const auto& req = job.request;
  auto& gen = *job.generation;
  bool open = true;
  size_t offset = 0;
  while (!gen.finished()) {
    auto ev = gen.next(kClientPollInterval);
    if (open && out.client_gone()) open = false;
    if (!open) {
      gen.cancel();
      continue;
    }
    if (!ev) continue;
    json logprobs;
    if (req.gen.top_logprobs >= 0 && !ev->tokens.empty()) {
      logprobs = completion_logprobs(ev->tokens, *m.text, offset);
      for (const auto& t : ev->tokens) offset += m.text->token_bytes(t.id).size();
    }
    if (!ev->text.empty() || !logprobs.is_null())
      open = out.send(completion_chunk_json(job.header, ev->text, nullptr, std::move(logprobs)));
    if (!ev->finished || !open) continue;

    if (ev->reason == engine::FinishReason::finish_cancelled || ev->reason == engine::FinishReason::finish_error) {
      out.send(error_body(unfinished_error(*ev)));
      return out.send_done();
    }
    json last = completion_chunk_json(job.header, "", openai_finish_reason(ev->reason, false), nullptr);
    last["plumb"] = plumb_extension(ev->stats);
    out.send(last);
    if (req.gen.include_usage) out.send(usage_chunk_json(job.header, "text_completion", ev->stats));
    return out.send_done();
  }
  return false;
}

}  // namespace

void add_completion_routes(HttpServer& http, ServerContext& ctx) {
  http.add_route("POST", "/v1/completions", [&ctx](const httplib::Request& http_req, const std::string& body,
                                                   httplib::Response& res) {
    const auto& m = ctx.require_model();
    auto job = std::make_shared<CompletionJob>();
    job->request = parse_completion_request(parse_body(body));
    check_model_name(job->request.gen.model, m);
    auto prompt = completion_prompt_ids(*m.text, job->request);
    job->header = new_reply_header("cmpl-", m.id);
    job->generation = std::make_unique<Generation>(
        ctx, m, make_engine_request(job->request.gen, std::move(prompt), m, "prompt"));
    const ClientSocket client(http_req.local_port, http_req.remote_addr, http_req.remote_port);

    if (!job->request.gen.stream) {
      const auto all = run_to_end(*job->generation, client);
      if (all.reason == engine::FinishReason::finish_cancelled || all.reason == engine::FinishReason::finish_error)
        throw unfinished_error(all);
      json logprobs = job->request.gen.top_logprobs >= 0 ? completion_logprobs(all.tokens, *m.text, 0) : json();
      send_json(res, 200, completion_json(job->header, all.text, openai_finish_reason(all.reason, false), all.stats,
                                          std::move(logprobs)));
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider("text/event-stream", [&ctx, &m, job, client](size_t, httplib::DataSink& sink) {
      ctx.stream_opened();
      SseWriter out(sink, client);
      bool completed = false;
      try {
        completed = stream_reply(*job, m, out);
      } catch (const std::exception& e) {
        spdlog::error("completion stream failed: {}", e.what());
      }
      job->generation.reset();
      ctx.stream_closed();
      return completed;
    });
  });
}

}  // namespace plumb::server
