// One streamed OpenAI request, timed: POST a chat or completions body with "stream": true, read the SSE chunks
// as they arrive and keep when the request left, when the first and last text pieces came, the usage, and
// plumb's extension (token_sha256, drafts). Works with any OpenAI-compatible server; what a server does not send
// stays empty (a missing token_sha256 is then a failed exactness check, never a pass).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "bench/server_url.h"

namespace plumb::bench {

using Clock = std::chrono::steady_clock;

struct StreamedReply {
  bool ok = false;
  std::string error;  // why not ok: transport error, HTTP status and body, an error event, a cut stream
  int http_status = 0;
  Clock::time_point sent;
  std::optional<Clock::time_point> first_piece, last_piece;  // chunks that carried text
  int64_t pieces = 0;
  std::string text;
  std::string finish_reason;
  std::optional<int64_t> prompt_tokens, completion_tokens, cached_tokens;  // from usage
  std::optional<std::string> token_sha256;                                 // from the plumb extension
  std::optional<int64_t> drafts_proposed, drafts_accepted;

  // Generated tokens: usage when the server sent it, else the text pieces (one token each on most servers).
  int64_t tokens() const { return completion_tokens.value_or(pieces); }
  std::optional<double> ttft_s() const;
  // (tokens - 1) / (last piece - first piece): the decode rate after the first token.
  std::optional<double> decode_tok_s() const;
  nlohmann::json to_json(Clock::time_point origin) const;  // times in seconds since `origin`
};

struct ClientOptions {
  double timeout_s = 600;  // per request, for connecting and for each read
  std::string api_key;     // sent as a bearer token when not empty
};

// Sends `body` (stream and stream_options.include_usage are set here) to `path` and follows the stream to its end.
StreamedReply stream_request(const ServerUrl& url, const std::string& path, nlohmann::json body,
                             const ClientOptions& options);

// GET `path`: the HTTP status, or 0 when the server could not be reached.
int get_status(const ServerUrl& url, const std::string& path, const ClientOptions& options);

}  // namespace plumb::bench
