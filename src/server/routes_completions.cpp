// POST /v1/completions: a prompt as text (special-token text becomes the special token) or as token ids,
// generated as is (no chat encoding); whole, or streamed as SSE chunks.
#include <memory>

#include "server/api_error.h"
#include "server/generation.h"
#include "server/openai_request.h"
#include "server/openai_response.h"
#include "server/request_prompt.h"
#include "server/routes.h"
#include "server/sse_reply.h"

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
  size_t offset = 0;
  const auto on_event = [&](const engine::RequestEvent& ev) {
    json logprobs;
    if (req.gen.top_logprobs >= 0 && !ev.tokens.empty()) {
      logprobs = completion_logprobs(ev.tokens, *m.text, offset);
      for (const auto& t : ev.tokens) offset += m.text->token_bytes(t.id).size();
    }
    if (ev.text.empty() && logprobs.is_null()) return true;
    return out.send(completion_chunk_json(job.header, ev.text, nullptr, std::move(logprobs)));
  };
  const auto on_finish = [&](const engine::RequestEvent& ev) {
    json last = completion_chunk_json(job.header, "", openai_finish_reason(ev.reason, false), nullptr);
    last["plumb"] = plumb_extension(ev.stats);
    out.send(last);
    if (req.gen.include_usage) out.send(usage_chunk_json(job.header, "text_completion", ev.stats));
  };
  return stream_generation(*job.generation, out, on_event, on_finish);
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
      json logprobs = job->request.gen.top_logprobs >= 0 ? completion_logprobs(all.tokens, *m.text, 0) : json();
      send_json(res, 200, completion_json(job->header, all.text, openai_finish_reason(all.reason, false), all.stats,
                                          std::move(logprobs)));
      return;
    }
    respond_with_sse(
        res, ctx, client, "completion", [&m, job](SseWriter& out) { return stream_reply(*job, m, out); },
        [job] { job->generation.reset(); });
  });
}

}  // namespace plumb::server
