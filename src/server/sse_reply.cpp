// The streamed reply's loop and its SSE response.
#include "server/sse_reply.h"

#include <spdlog/spdlog.h>

#include "server/api_error.h"

namespace plumb::server {

bool stream_generation(Generation& gen, SseWriter& out,
                       const std::function<bool(const engine::RequestEvent&)>& on_event,
                       const std::function<void(const engine::RequestEvent&)>& on_finish) {
  bool open = true;
  while (!gen.finished()) {
    auto ev = gen.next(kClientPollInterval);
    if (open && out.client_gone()) open = false;
    if (!open) {
      gen.cancel();
      continue;
    }
    if (!ev) continue;
    open = on_event(*ev);
    if (!ev->finished || !open) continue;
    if (unfinished(*ev)) {
      out.send(error_body(unfinished_error(*ev)));
    } else {
      on_finish(*ev);
    }
    return out.send_done();
  }
  return false;
}

void respond_with_sse(httplib::Response& res, ServerContext& ctx, const ClientSocket& client, const char* what,
                      std::function<bool(SseWriter&)> write, std::function<void()> release) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
      "text/event-stream", [&ctx, client, what, write = std::move(write), release = std::move(release)](
                               size_t, httplib::DataSink& sink) {
        ctx.stream_opened();
        SseWriter out(sink, client);
        bool completed = false;
        try {
          completed = write(out);
        } catch (const std::exception& e) {
          spdlog::error("{} stream failed: {}", what, e.what());
        }
        release();
        ctx.stream_closed();
        // false ends the response without the closing chunk: the client sees a cut stream, never a retry of it.
        return completed;
      });
}

}  // namespace plumb::server
