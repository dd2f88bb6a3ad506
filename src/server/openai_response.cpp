#include "server/openai_response.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <random>

#include "base/version.h"

namespace plumb::server {
namespace {

// JSON has no -inf: a token the model gives zero probability reports vLLM's floor instead.
double finite_logprob(double lp) { return std::isfinite(lp) ? lp : -9999.0; }

json byte_list(const std::string& bytes) {
  json out = json::array();
  for (unsigned char c : bytes) out.push_back(int(c));
  return out;
}

json with_fingerprint(json j) {
  j["system_fingerprint"] = fmt::format("plumb-{}", plumb::git_commit());
  return j;
}

// The fields every reply and chunk starts with, in OpenAI's order.
json envelope(const ReplyHeader& h, std::string_view object, json choices) {
  return {{"id", h.id}, {"object", object}, {"created", h.created}, {"model", h.model}, {"choices", std::move(choices)}};
}

// The one choice plumb returns (n = 1): its body under `key` ("message", "delta" or "text").
json one_choice(const char* key, json body, json logprobs, json finish_reason) {
  return json::array(
      {{{"index", 0}, {key, std::move(body)}, {"logprobs", std::move(logprobs)}, {"finish_reason", std::move(finish_reason)}}});
}

}  // namespace

std::string random_id(std::string_view prefix) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{}{:016x}{:08x}", prefix, rng(), uint32_t(rng()));
}

ReplyHeader new_reply_header(std::string_view id_prefix, const std::string& model) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return {random_id(id_prefix), std::chrono::duration_cast<std::chrono::seconds>(now).count(), model};
}

std::string openai_finish_reason(engine::FinishReason reason, bool has_tool_calls) {
  if (reason == engine::FinishReason::finish_length) return "length";
  return has_tool_calls ? "tool_calls" : "stop";
}

json usage_json(const engine::RequestStats& s) {
  return {{"prompt_tokens", s.prompt_tokens},
          {"completion_tokens", s.completion_tokens},
          {"total_tokens", s.prompt_tokens + s.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", s.cached_tokens}}}};
}

json plumb_extension(const engine::RequestStats& s) {
  return {{"token_sha256", s.token_sha256},
          {"seed", s.seed},
          {"drafts", {{"proposed", s.drafts_proposed}, {"accepted", s.drafts_accepted}}}};
}

json chat_logprobs(std::span<const engine::GeneratedToken> tokens, const ModelText& text) {
  json content = json::array();
  for (const auto& t : tokens) {
    const std::string bytes = text.token_bytes(t.id);
    json top = json::array();
    for (const auto& alt : t.top) {
      const std::string alt_bytes = text.token_bytes(alt.token);
      top.push_back({{"token", alt_bytes}, {"logprob", finite_logprob(alt.logprob)}, {"bytes", byte_list(alt_bytes)}});
    }
    content.push_back({{"token", bytes},
                       {"logprob", finite_logprob(t.logprob ? t.logprob->logprob : 0.0)},
                       {"bytes", byte_list(bytes)},
                       {"top_logprobs", std::move(top)}});
  }
  return {{"content", std::move(content)}, {"refusal", nullptr}};
}

json completion_logprobs(std::span<const engine::GeneratedToken> tokens, const ModelText& text, size_t first_offset) {
  json out = {{"tokens", json::array()}, {"token_logprobs", json::array()}, {"top_logprobs", json::array()},
              {"text_offset", json::array()}};
  size_t offset = first_offset;
  for (const auto& t : tokens) {
    const std::string bytes = text.token_bytes(t.id);
    out["tokens"].push_back(bytes);
    out["token_logprobs"].push_back(finite_logprob(t.logprob ? t.logprob->logprob : 0.0));
    json top = json::object();
    for (const auto& alt : t.top) top[text.token_bytes(alt.token)] = finite_logprob(alt.logprob);
    out["top_logprobs"].push_back(std::move(top));
    out["text_offset"].push_back(offset);
    offset += bytes.size();
  }
  return out;
}

json tool_calls_json(const ChatReply& reply, const std::vector<std::string>& ids, bool with_index) {
  json calls = json::array();
  for (size_t i = 0; i < reply.tool_calls.size(); ++i) {
    json call = {{"id", ids.at(i)},
                 {"type", "function"},
                 {"function", {{"name", reply.tool_calls[i].name}, {"arguments", reply.tool_calls[i].arguments}}}};
    if (with_index) call["index"] = i;
    calls.push_back(std::move(call));
  }
  return calls;
}

json chat_message_json(const ChatReply& reply, const std::vector<std::string>& ids, bool thinking) {
  json msg = {{"role", "assistant"}, {"content", reply.content}};
  if (thinking) msg["reasoning_content"] = reply.reasoning_content;
  if (!reply.tool_calls.empty()) {
    msg["tool_calls"] = tool_calls_json(reply, ids, false);
    if (reply.content.empty()) msg["content"] = nullptr;
  }
  return msg;
}

namespace {

// A whole (non-streamed) reply: the envelope, then usage and plumb's extension.
json whole_reply(const ReplyHeader& h, std::string_view object, json choices, const engine::RequestStats& stats) {
  json j = envelope(h, object, std::move(choices));
  j["usage"] = usage_json(stats);
  j["plumb"] = plumb_extension(stats);
  return with_fingerprint(std::move(j));
}

}  // namespace

json chat_completion_json(const ReplyHeader& h, json message, const std::string& finish_reason,
                          const engine::RequestStats& stats, json logprobs) {
  return whole_reply(h, "chat.completion", one_choice("message", std::move(message), std::move(logprobs), finish_reason),
                     stats);
}

json chat_chunk_json(const ReplyHeader& h, json delta, json finish_reason, json logprobs) {
  return with_fingerprint(envelope(h, "chat.completion.chunk",
                                   one_choice("delta", std::move(delta), std::move(logprobs), std::move(finish_reason))));
}

json completion_json(const ReplyHeader& h, const std::string& text, const std::string& finish_reason,
                     const engine::RequestStats& stats, json logprobs) {
  return whole_reply(h, "text_completion", one_choice("text", text, std::move(logprobs), finish_reason), stats);
}

json completion_chunk_json(const ReplyHeader& h, const std::string& text, json finish_reason, json logprobs) {
  return with_fingerprint(
      envelope(h, "text_completion", one_choice("text", text, std::move(logprobs), std::move(finish_reason))));
}

json usage_chunk_json(const ReplyHeader& h, std::string_view object, const engine::RequestStats& stats) {
  json j = envelope(h, object, json::array());
  j["usage"] = usage_json(stats);
  return with_fingerprint(std::move(j));
}

}  // namespace plumb::server
