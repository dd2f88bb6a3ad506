#include "server/openai_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string_view>

#include "server/api_error.h"
#include "server/chat_messages.h"
#include "server/json_fields.h"

namespace plumb::server {
namespace {

constexpr int64_t kMaxTokensLimit = std::numeric_limits<int32_t>::max();
constexpr int kMaxStops = 16;

enum class Endpoint { chat, completion };

// Every top-level field an endpoint accepts. Anything else is an error, as in OpenAI's API.
const std::set<std::string, std::less<>>& known_fields(Endpoint e) {
  static const std::set<std::string, std::less<>> shared = {
      "model", "max_tokens", "temperature", "top_p", "top_k", "min_p", "seed", "stop", "stream", "stream_options",
      "n", "logprobs", "presence_penalty", "frequency_penalty", "logit_bias", "user", "draft", "ignore_eos",
      "store", "metadata", "service_tier", "prompt_cache_key", "safety_identifier"};
  static const std::set<std::string, std::less<>> chat = [] {
    auto s = shared;
    s.insert({"messages", "max_completion_tokens", "top_logprobs", "tools", "tool_choice", "parallel_tool_calls",
              "reasoning", "reasoning_effort", "response_format", "modalities", "verbosity", "functions",
              "function_call", "audio", "prediction", "web_search_options"});
    return s;
  }();
  static const std::set<std::string, std::less<>> completion = [] {
    auto s = shared;
    s.insert({"prompt", "echo", "suffix", "best_of"});
    return s;
  }();
  return e == Endpoint::chat ? chat : completion;
}

void reject_unknown_fields(const json& body, Endpoint e) {
  const auto& known = known_fields(e);
  for (const auto& [key, value] : body.items())
    if (!known.contains(key)) throw invalid_request(fmt::format("Unrecognized request argument supplied: {}", key), key);
}

[[noreturn]] void unsupported(std::string_view field, std::string_view why) {
  throw invalid_request(fmt::format("'{}' {}", field, why), std::string(field));
}

// OpenAI fields plumb ignores: their types are still checked, and values that would change the output are refused.
void check_ignored_fields(const FieldReader& f) {
  f.string("user");
  f.boolean("store");
  f.object("metadata");
  f.string("service_tier");
  f.string("prompt_cache_key");
  f.string("safety_identifier");
  f.boolean("parallel_tool_calls");
  f.string("verbosity");
  for (const char* penalty : {"presence_penalty", "frequency_penalty"})
    if (f.number(penalty, -2.0, 2.0).value_or(0.0) != 0.0) unsupported(penalty, "is not supported (only 0)");
  if (const json* bias = f.object("logit_bias"); bias && !bias->empty())
    unsupported("logit_bias", "is not supported (only an empty object)");
  if (f.integer("n", 1, std::numeric_limits<int64_t>::max()).value_or(1) != 1)
    unsupported("n", "must be 1: plumb returns one choice per request");
}

std::vector<std::string> read_stop(const json& body) {
  auto it = body.find("stop");
  if (it == body.end() || it->is_null()) return {};
  if (it->is_string()) return {it->get<std::string>()};
  if (!it->is_array()) throw invalid_request("'stop' must be a string or an array of strings", "stop");
  if (int(it->size()) > kMaxStops) throw invalid_request(fmt::format("'stop' has more than {} strings", kMaxStops), "stop");
  std::vector<std::string> out;
  for (size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string())
      throw invalid_request(fmt::format("'stop[{}]' must be a string, got {}", i, json_type_name((*it)[i])),
                            fmt::format("stop[{}]", i));
    out.push_back((*it)[i].get<std::string>());
  }
  return out;
}

GenerationFields read_generation_fields(const json& body, Endpoint endpoint) {
  FieldReader f(body, "");
  check_ignored_fields(f);
  GenerationFields g;
  g.model = f.string("model");
  g.max_tokens = f.integer("max_tokens", 1, kMaxTokensLimit);
  if (endpoint == Endpoint::chat)
    if (auto m = f.integer("max_completion_tokens", 1, kMaxTokensLimit)) g.max_tokens = m;
  if (auto t = f.number("temperature", 0.0, 2.0)) g.sampling.temperature = *t;
  if (auto p = f.number("top_p", 0.0, 1.0)) {
    if (*p == 0.0) throw invalid_request("'top_p' must be greater than 0", "top_p");
    g.sampling.top_p = *p;
  }
  // -1 means "off", as in vLLM.
  if (auto k = f.integer("top_k", -1, std::numeric_limits<int32_t>::max())) g.sampling.top_k = *k < 0 ? 0 : int32_t(*k);
  if (auto m = f.number("min_p", 0.0, 1.0)) g.sampling.min_p = *m;
  if (auto s = f.integer("seed", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()))
    g.sampling.seed = uint64_t(*s);
  g.stop = read_stop(body);
  g.stream = f.boolean("stream").value_or(false);
  if (const json* so = f.object("stream_options"))
    g.include_usage = FieldReader(*so, "stream_options").boolean("include_usage").value_or(false);
  g.draft = f.boolean("draft").value_or(true);
  g.ignore_eos = f.boolean("ignore_eos").value_or(false);

  if (endpoint == Endpoint::chat) {
    const bool logprobs = f.boolean("logprobs").value_or(false);
    const auto top = f.integer("top_logprobs", 0, 20);
    if (top && !logprobs) throw invalid_request("'top_logprobs' needs 'logprobs' set to true", "top_logprobs");
    if (logprobs) g.top_logprobs = int32_t(top.value_or(0));
  } else if (auto n = f.integer("logprobs", 0, 20)) {
    g.top_logprobs = int32_t(*n);
  }
  return g;
}

// reasoning_effort "none" or reasoning.enabled false turn thinking off; any other effort or enabled true turn
// it on (OpenAI's effort names are accepted; the model itself knows "high", its default, and "max").
void read_reasoning(const FieldReader& f, ChatRequest& out) {
  static const std::set<std::string, std::less<>> efforts = {"none", "minimal", "low", "medium", "high", "max"};
  auto check_effort = [&](const std::string& effort, const std::string& param) {
    if (!efforts.contains(effort))
      throw invalid_request(
          fmt::format("'{}' is '{}'; expected none, minimal, low, medium, high or max", param, effort), param);
  };
  if (auto effort = f.string("reasoning_effort")) {
    check_effort(*effort, "reasoning_effort");
    out.thinking = *effort != "none";
    if (out.thinking) out.reasoning_effort = *effort;
  }
  if (const json* r = f.object("reasoning")) {
    FieldReader rf(*r, "reasoning");
    if (auto effort = rf.string("effort")) {
      check_effort(*effort, "reasoning.effort");
      out.thinking = *effort != "none";
      out.reasoning_effort = out.thinking ? *effort : "";
    }
    if (auto enabled = rf.boolean("enabled")) {
      out.thinking = *enabled;
      if (!*enabled) out.reasoning_effort.clear();
    }
  }
}

void check_chat_only_fields(const FieldReader& f) {
  if (f.has("functions") || f.has("function_call"))
    unsupported(f.has("functions") ? "functions" : "function_call", "is deprecated; use 'tools' and 'tool_choice'");
  for (const char* field : {"audio", "prediction", "web_search_options"})
    if (f.has(field)) unsupported(field, "is not supported");
  if (const json* rf = f.object("response_format")) {
    if (FieldReader(*rf, "response_format").string("type").value_or("") != "text")
      unsupported("response_format", "is not supported (only {\"type\": \"text\"})");
  }
  if (const json* modalities = f.array("modalities"))
    for (const auto& m : *modalities)
      if (m != "text") unsupported("modalities", "is not supported (only [\"text\"])");
}

std::vector<int32_t> read_token_ids(const json& arr, const std::string& param) {
  std::vector<int32_t> ids;
  ids.reserve(arr.size());
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& v = arr[i];
    if (!v.is_number_integer())
      throw invalid_request(fmt::format("'{}[{}]' must be a token id (an integer), got {}", param, i,
                                        json_type_name(v)),
                            param);
    const bool in_range = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(INT32_MAX)
                                                 : (v.get<int64_t>() >= 0 && v.get<int64_t>() <= INT32_MAX);
    if (!in_range) throw invalid_request(fmt::format("'{}[{}]' is not a token id: {}", param, i, v.dump()), param);
    const int64_t id = v.get<int64_t>();
    ids.push_back(int32_t(id));
  }
  return ids;
}

void require_object(const json& body) {
  if (!body.is_object())
    throw invalid_request(fmt::format("the request body must be a JSON object, got {}", json_type_name(body)));
}

}  // namespace

ChatRequest parse_chat_request(const json& body) {
  require_object(body);
  reject_unknown_fields(body, Endpoint::chat);
  FieldReader f(body, "");
  ChatRequest out;
  out.gen = read_generation_fields(body, Endpoint::chat);
  check_chat_only_fields(f);
  auto it = body.find("messages");
  if (it == body.end() || it->is_null()) throw invalid_request("'messages' is required", "messages");
  out.messages = normalize_messages(*it);
  out.tools = select_tools(f.array("tools") ? &body["tools"] : nullptr,
                           f.has("tool_choice") ? &body["tool_choice"] : nullptr);
  read_reasoning(f, out);
  return out;
}

CompletionRequest parse_completion_request(const json& body) {
  require_object(body);
  reject_unknown_fields(body, Endpoint::completion);
  FieldReader f(body, "");
  CompletionRequest out;
  out.gen = read_generation_fields(body, Endpoint::completion);
  if (f.boolean("echo").value_or(false)) unsupported("echo", "is not supported");
  if (!f.string("suffix").value_or("").empty()) unsupported("suffix", "is not supported");
  if (f.integer("best_of", 1, std::numeric_limits<int64_t>::max()).value_or(1) != 1)
    unsupported("best_of", "must be 1");

  auto it = body.find("prompt");
  if (it == body.end() || it->is_null()) throw invalid_request("'prompt' is required", "prompt");
  const json* prompt = &*it;
  // A batch of one ([["text"]] or [[ids]]) is the same as its single prompt.
  if (prompt->is_array() && prompt->size() == 1 && ((*prompt)[0].is_string() || (*prompt)[0].is_array()))
    prompt = &(*prompt)[0];
  if (prompt->is_string()) {
    out.prompt_text = prompt->get<std::string>();
  } else if (prompt->is_array() && !prompt->empty() && ((*prompt)[0].is_string() || (*prompt)[0].is_array())) {
    throw invalid_request("batched prompts are not supported: send one prompt per request", "prompt");
  } else if (prompt->is_array()) {
    out.prompt_ids = read_token_ids(*prompt, "prompt");
  } else {
    throw invalid_request(fmt::format("'prompt' must be a string or an array of token ids, got {}",
                                      json_type_name(*prompt)),
                          "prompt");
  }
  if ((out.prompt_text && out.prompt_text->empty()) || (!out.prompt_text && out.prompt_ids.empty()))
    throw invalid_request("'prompt' is empty", "prompt");
  return out;
}

TokenizeRequest parse_tokenize_request(const json& body) {
  require_object(body);
  for (const auto& [key, value] : body.items())
    if (key != "model" && key != "prompt" && key != "messages" && key != "add_special_tokens")
      throw invalid_request(fmt::format("Unrecognized request argument supplied: {}", key), key);
  FieldReader f(body, "");
  TokenizeRequest out;
  out.model = f.string("model");
  f.boolean("add_special_tokens");
  out.prompt = f.string("prompt");
  if (f.has("messages")) {
    if (out.prompt) throw invalid_request("give either 'prompt' or 'messages', not both", "messages");
    ChatRequest chat;
    chat.messages = normalize_messages(body["messages"]);
    out.chat = std::move(chat);
  } else if (!out.prompt) {
    throw invalid_request("'prompt' or 'messages' is required", "prompt");
  }
  return out;
}

DetokenizeRequest parse_detokenize_request(const json& body) {
  require_object(body);
  for (const auto& [key, value] : body.items())
    if (key != "model" && key != "tokens")
      throw invalid_request(fmt::format("Unrecognized request argument supplied: {}", key), key);
  FieldReader f(body, "");
  DetokenizeRequest out;
  out.model = f.string("model");
  const json* tokens = f.array("tokens");
  if (!tokens) throw invalid_request("'tokens' is required", "tokens");
  out.tokens = read_token_ids(*tokens, "tokens");
  return out;
}

}  // namespace plumb::server
