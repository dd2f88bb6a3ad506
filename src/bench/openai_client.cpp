#include "bench/openai_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include "bench/sse.h"

namespace plumb::bench {
namespace {

using nlohmann::json;

constexpr size_t kErrorBodyChars = 400;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

void set_timeouts(httplib::Client& client, const ClientOptions& options) {
  const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::duration<double>(options.timeout_s));
  client.set_connection_timeout(whole);
  client.set_read_timeout(whole);
  client.set_write_timeout(whole);
  if (!options.api_key.empty()) client.set_bearer_token_auth(options.api_key);
}

std::optional<int64_t> int_at(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// The text a chunk carries: chat deltas (content, reasoning_content) or a completion's text.
std::string chunk_text(const json& choice) {
  std::string text;
  if (auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) {
    for (const char* key : {"reasoning_content", "content"})
      if (auto it = delta->find(key); it != delta->end() && it->is_string()) text += it->get<std::string>();
  } else if (auto it = choice.find("text"); it != choice.end() && it->is_string()) {
    text = it->get<std::string>();
  }
  return text;
}

// Follows one stream: each SSE event is a JSON chunk, an error object, or [DONE].
class StreamReader {
 public:
  explicit StreamReader(StreamedReply& reply) : reply_(reply) {}

  void feed(const char* data, size_t size) {
    if (reply_.http_status != 200) {
      if (error_body_.size() < kErrorBodyChars) error_body_.append(data, std::min(size, kErrorBodyChars));
      return;
    }
    const auto now = Clock::now();
    for (const std::string& event : parser_.feed(std::string_view(data, size))) take_event(event, now);
  }

  // Called once the connection is done; decides ok / error.
  void finish(bool transport_ok, const std::string& transport_error) {
    if (!reply_.error.empty()) return;
    if (!transport_ok) {
      reply_.error = transport_error;
    } else if (reply_.http_status != 200) {
      reply_.error = fmt::format("HTTP {}: {}", reply_.http_status, error_body_.substr(0, kErrorBodyChars));
    } else if (!done_) {
      reply_.error = "the stream ended before data: [DONE]";
    } else {
      reply_.ok = true;
    }
  }

 private:
  void take_event(const std::string& data, Clock::time_point now) {
    if (data == "[DONE]") {
      done_ = true;
      return;
    }
    json chunk = json::parse(data, nullptr, false);
    if (chunk.is_discarded() || !chunk.is_object()) {
      set_error(fmt::format("a stream chunk is not a JSON object: {}", data.substr(0, kErrorBodyChars)));
      return;
    }
    if (auto err = chunk.find("error"); err != chunk.end() && !err->is_null()) {
      set_error(fmt::format("error event: {}", err->dump().substr(0, kErrorBodyChars)));
      return;
    }
    if (auto choices = chunk.find("choices"); choices != chunk.end() && choices->is_array() && !choices->empty()) {
      const json& choice = (*choices)[0];
      const std::string text = chunk_text(choice);
      if (!text.empty()) {
        if (!reply_.first_piece) reply_.first_piece = now;
        reply_.last_piece = now;
        ++reply_.pieces;
        reply_.text += text;
      }
      if (auto fr = choice.find("finish_reason"); fr != choice.end() && fr->is_string())
        reply_.finish_reason = fr->get<std::string>();
    }
    if (auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object()) {
      reply_.prompt_tokens = int_at(*usage, "prompt_tokens");
      reply_.completion_tokens = int_at(*usage, "completion_tokens");
      if (auto details = usage->find("prompt_tokens_details"); details != usage->end() && details->is_object())
        reply_.cached_tokens = int_at(*details, "cached_tokens");
    }
    if (auto ext = chunk.find("plumb"); ext != chunk.end() && ext->is_object()) {
      if (auto sha = ext->find("token_sha256"); sha != ext->end() && sha->is_string())
        reply_.token_sha256 = sha->get<std::string>();
      if (auto drafts = ext->find("drafts"); drafts != ext->end() && drafts->is_object()) {
        reply_.drafts_proposed = int_at(*drafts, "proposed");
        reply_.drafts_accepted = int_at(*drafts, "accepted");
      }
    }
  }

  void set_error(std::string message) {
    if (reply_.error.empty()) reply_.error = std::move(message);
  }

  StreamedReply& reply_;
  SseParser parser_;
  std::string error_body_;
  bool done_ = false;
};

json optional_json(const auto& value) { return value ? json(*value) : json(nullptr); }

}  // namespace

std::optional<double> StreamedReply::ttft_s() const {
  if (!first_piece) return std::nullopt;
  return seconds(*first_piece - sent);
}

std::optional<double> StreamedReply::decode_tok_s() const {
  if (!first_piece || !last_piece || tokens() < 2 || *last_piece <= *first_piece) return std::nullopt;
  return double(tokens() - 1) / seconds(*last_piece - *first_piece);
}

json StreamedReply::to_json(Clock::time_point origin) const {
  auto at = [&](const std::optional<Clock::time_point>& t) { return t ? json(seconds(*t - origin)) : json(nullptr); };
  return {{"ok", ok},
          {"error", error.empty() ? json(nullptr) : json(error)},
          {"http_status", http_status},
          {"sent_s", seconds(sent - origin)},
          {"first_piece_s", at(first_piece)},
          {"last_piece_s", at(last_piece)},
          {"ttft_s", optional_json(ttft_s())},
          {"decode_tok_s", optional_json(decode_tok_s())},
          {"pieces", pieces},
          {"prompt_tokens", optional_json(prompt_tokens)},
          {"completion_tokens", optional_json(completion_tokens)},
          {"cached_tokens", optional_json(cached_tokens)},
          {"finish_reason", finish_reason},
          {"token_sha256", optional_json(token_sha256)},
          {"drafts", {{"proposed", optional_json(drafts_proposed)}, {"accepted", optional_json(drafts_accepted)}}}};
}

StreamedReply stream_request(const ServerUrl& url, const std::string& path, json body, const ClientOptions& options) {
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};

  StreamedReply reply;
  StreamReader reader(reply);
  httplib::Client client(url.host, url.port);
  set_timeouts(client, options);

  httplib::Request req;
  req.method = "POST";
  req.path = path;
  req.body = body.dump();
  req.set_header("Content-Type", "application/json");
  req.set_header("Accept", "text/event-stream");
  req.response_handler = [&](const httplib::Response& res) {
    reply.http_status = res.status;
    return true;
  };
  req.content_receiver = [&](const char* data, size_t size, uint64_t, uint64_t) {
    reader.feed(data, size);
    return true;
  };

  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  reply.sent = Clock::now();
  const bool sent = client.send(req, res, error);
  if (reply.http_status == 0) reply.http_status = res.status;
  reader.finish(sent, fmt::format("POST http://{}:{}{}: {}", url.host, url.port, path, httplib::to_string(error)));
  return reply;
}

int get_status(const ServerUrl& url, const std::string& path, const ClientOptions& options) {
  httplib::Client client(url.host, url.port);
  set_timeouts(client, options);
  auto res = client.Get(path.c_str());
  return res ? res->status : 0;
}

}  // namespace plumb::bench
