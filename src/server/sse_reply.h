// A streamed reply, shared by chat and completions: the SSE response around it, and the loop that follows the
// generation, cancels it when the client leaves, and ends the stream with an error chunk or the route's last chunks.
#pragma once

#include <functional>

#include <httplib.h>

#include "server/generation.h"
#include "server/server_context.h"
#include "server/sse_writer.h"

namespace plumb::server {

// Sends each event to on_event (false: the client is gone, so the request is cancelled); on the last event, an
// error chunk if the request ended cancelled or failed, else on_finish's chunks; then [DONE]. False when the
// stream ended early (the client left, or a write failed).
bool stream_generation(Generation& gen, SseWriter& out,
                       const std::function<bool(const engine::RequestEvent&)>& on_event,
                       const std::function<void(const engine::RequestEvent&)>& on_finish);

// Answers `res` with an event stream written by `write` (true: it ran to its end); `release` runs once the
// writer is done, even if it threw. `what` names the route in the log.
void respond_with_sse(httplib::Response& res, ServerContext& ctx, const ClientSocket& client, const char* what,
                      std::function<bool(SseWriter&)> write, std::function<void()> release);

}  // namespace plumb::server
