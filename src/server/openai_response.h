// Replies in OpenAI's shapes: chat.completion and its chunks, text_completion and its chunks, usage (with
// prompt_tokens_details.cached_tokens), logprobs in both APIs' forms, and plumb's extension object
// {"plumb": {"token_sha256", "drafts": {"proposed", "accepted"}}} on the reply (or the last chunk).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/request.h"
#include "server/model_text.h"

namespace plumb::server {

using json = nlohmann::ordered_json;

struct ReplyHeader {
  std::string id;  // chatcmpl-..., cmpl-...
  int64_t created = 0;
  std::string model;
};
ReplyHeader new_reply_header(std::string_view id_prefix, const std::string& model);
std::string random_id(std::string_view prefix);  // prefix + 24 hex digits

// "stop", "length", or "tool_calls" (a stop whose reply has tool calls).
std::string openai_finish_reason(engine::FinishReason reason, bool has_tool_calls);

json usage_json(const engine::RequestStats& stats);
json plumb_extension(const engine::RequestStats& stats);

// {"content": [{"token", "logprob", "bytes", "top_logprobs": [...]}, ...], "refusal": null}
json chat_logprobs(std::span<const engine::GeneratedToken> tokens, const ModelText& text);
// {"tokens", "token_logprobs", "top_logprobs", "text_offset"}; offsets count bytes from `first_offset`.
json completion_logprobs(std::span<const engine::GeneratedToken> tokens, const ModelText& text, size_t first_offset);

// tool_call_ids: one per reply.tool_calls entry.
json chat_message_json(const ChatReply& reply, const std::vector<std::string>& tool_call_ids, bool thinking);
json tool_calls_json(const ChatReply& reply, const std::vector<std::string>& tool_call_ids, bool with_index);

json chat_completion_json(const ReplyHeader& h, json message, const std::string& finish_reason,
                          const engine::RequestStats& stats, json logprobs);
json chat_chunk_json(const ReplyHeader& h, json delta, json finish_reason, json logprobs);

json completion_json(const ReplyHeader& h, const std::string& text, const std::string& finish_reason,
                     const engine::RequestStats& stats, json logprobs);
json completion_chunk_json(const ReplyHeader& h, const std::string& text, json finish_reason, json logprobs);

// The last chunk when stream_options.include_usage is set: no choices, the usage.
json usage_chunk_json(const ReplyHeader& h, std::string_view object, const engine::RequestStats& stats);

}  // namespace plumb::server
