// OpenAI request bodies -> validated requests. Everything a client can get wrong about the JSON itself is caught
// here with a 400 naming the field: wrong types, out-of-range numbers, unknown roles or enum values, unsupported
// features asked for (n > 1, penalties, logit_bias), and fields OpenAI does not know. OpenAI fields plumb has no
// use for (user, store, metadata, ...) are type-checked and ignored. Tokenizing and the context check come later
// (routes), because they need the model.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/sampling.h"

namespace plumb::server {

// Fields /v1/chat/completions and /v1/completions share.
struct GenerationFields {
  std::optional<std::string> model;
  std::optional<int64_t> max_tokens;  // max_completion_tokens, else max_tokens; none: the rest of the context
  engine::SamplingParams sampling;
  std::vector<std::string> stop;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  int32_t top_logprobs = -1;   // -1: no logprobs
  bool draft = true;           // extension: speculative drafts allowed
  bool ignore_eos = false;     // extension (as in vLLM): generate past EOS up to max_tokens
};

struct ChatRequest {
  GenerationFields gen;
  // Normalized messages: role, content (a string), and where given reasoning_content, tool_calls (OpenAI shape,
  // arguments a JSON object text), tool_call_id, name.
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  // The tools the prompt describes, OpenAI shape ({"type": "function", "function": {...}}), after tool_choice.
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();
  bool thinking = false;         // reasoning on: the reply starts with reasoning_content
  std::string reasoning_effort;  // as given ("low" ... "max") when thinking, else empty
};

struct CompletionRequest {
  GenerationFields gen;
  std::optional<std::string> prompt_text;  // one of the two is set
  std::vector<int32_t> prompt_ids;
};

ChatRequest parse_chat_request(const nlohmann::ordered_json& body);
CompletionRequest parse_completion_request(const nlohmann::ordered_json& body);

// POST /tokenize: {"prompt": "..."} or {"messages": [...]} (rendered as a chat prompt), as in vLLM.
struct TokenizeRequest {
  std::optional<std::string> model;
  std::optional<std::string> prompt;
  std::optional<ChatRequest> chat;
};
TokenizeRequest parse_tokenize_request(const nlohmann::ordered_json& body);

// POST /detokenize: {"tokens": [ids]}.
struct DetokenizeRequest {
  std::optional<std::string> model;
  std::vector<int32_t> tokens;
};
DetokenizeRequest parse_detokenize_request(const nlohmann::ordered_json& body);

}  // namespace plumb::server
