// One request's run through the engine, shared by chat and completions, streaming or not: the engine request
// built from validated fields (with the context check), submission with its errors mapped to HTTP, events
// followed to the end, cancellation when the client leaves, and the request's metrics recorded when it ends.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/request.h"
#include "server/api_error.h"
#include "server/client_socket.h"
#include "server/openai_request.h"
#include "server/server_context.h"

namespace plumb::server {

// Throws a 400 ApiError (code context_length_exceeded where it applies) naming `prompt_param` or max_tokens.
engine::GenerationRequest make_engine_request(const GenerationFields& fields, std::vector<int32_t> prompt,
                                              const ServedModel& model, const std::string& prompt_param);

class Generation {
 public:
  // Submits the request: throws ApiError 400 for a request the engine refuses, 503 (Retry-After) when the
  // queue is full.
  Generation(ServerContext& ctx, const ServedModel& model, engine::GenerationRequest request);
  ~Generation();  // cancels an unfinished request
  Generation(const Generation&) = delete;
  Generation& operator=(const Generation&) = delete;

  // The next event, or nullopt after `timeout`.
  std::optional<engine::RequestEvent> next(std::chrono::milliseconds timeout);
  void cancel();
  bool finished() const { return finished_; }

 private:
  ServerContext& ctx_;
  std::shared_ptr<engine::RequestHandle> handle_;
  bool finished_ = false;
  FinishedRequest record_;
  std::optional<std::chrono::steady_clock::time_point> last_token_at_;
};

// How often a waiting request looks at its client's connection.
inline constexpr std::chrono::milliseconds kClientPollInterval{50};

// Follows a generation to its end for a non-streaming reply: all events joined. A client that goes away
// cancels it; a request that ended cancelled or failed throws its unfinished_error.
engine::RequestEvent run_to_end(Generation& gen, const ClientSocket& client);

// Whether a request ended cancelled (by shutdown: a client that left gets nothing) or failed, and the error it
// answers with then.
bool unfinished(const engine::RequestEvent& last);
ApiError unfinished_error(const engine::RequestEvent& last);

}  // namespace plumb::server
