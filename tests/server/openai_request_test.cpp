// Request validation: each malformed body gets a 400 naming the exact field, each valid one its exact values.
#include <gtest/gtest.h>

#include "server/api_error.h"
#include "server/openai_request.h"
#include "test_support.h"

namespace plumb::server {
namespace {

using json = nlohmann::ordered_json;

json chat(json extra = json::object()) {
  json body = {{"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  for (auto& [k, v] : extra.items()) body[k] = v;
  return body;
}

// Runs parse and returns the ApiError it throws (fails the test when none is thrown).
template <typename Fn>
ApiError error_of(Fn fn) {
  try {
    fn();
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "no ApiError thrown";
  return ApiError(0, "", "");
}

void expect_chat_400(const json& body, const std::string& param, const std::string& code = "") {
  const ApiError e = error_of([&] { parse_chat_request(body); });
  EXPECT_EQ(e.status, 400) << body.dump();
  EXPECT_EQ(e.type, "invalid_request_error") << body.dump();
  EXPECT_EQ(e.param, param) << body.dump() << " -> " << e.what();
  EXPECT_EQ(e.code, code) << body.dump();
}

TEST(OpenAIRequest, ChatDefaults) {
  const auto r = parse_chat_request(chat());
  EXPECT_FALSE(r.gen.model);
  EXPECT_FALSE(r.gen.max_tokens);
  EXPECT_EQ(r.gen.sampling.temperature, 1.0);
  EXPECT_EQ(r.gen.sampling.top_p, 1.0);
  EXPECT_EQ(r.gen.sampling.top_k, 0);
  EXPECT_FALSE(r.gen.sampling.seed);
  EXPECT_FALSE(r.gen.stream);
  EXPECT_EQ(r.gen.top_logprobs, -1);
  EXPECT_TRUE(r.gen.draft);
  EXPECT_FALSE(r.thinking);
  EXPECT_EQ(r.messages, json::parse(R"([{"role":"user","content":"hi"}])"));
  EXPECT_EQ(r.tools, json::array());
}

TEST(OpenAIRequest, ChatFieldsAreRead) {
  const auto r = parse_chat_request(chat({{"model", "m"}, {"max_tokens", 7}, {"max_completion_tokens", 9},
                                          {"temperature", 0.5}, {"top_p", 0.9}, {"top_k", 40}, {"min_p", 0.1},
                                          {"seed", -1}, {"stop", "END"}, {"stream", true},
                                          {"stream_options", {{"include_usage", true}}}, {"n", 1},
                                          {"logprobs", true}, {"top_logprobs", 3}, {"draft", false},
                                          {"user", "u"}, {"presence_penalty", 0}, {"logit_bias", json::object()}}));
  EXPECT_EQ(r.gen.model, "m");
  EXPECT_EQ(r.gen.max_tokens, 9);  // max_completion_tokens wins
  EXPECT_EQ(r.gen.sampling.temperature, 0.5);
  EXPECT_EQ(r.gen.sampling.top_p, 0.9);
  EXPECT_EQ(r.gen.sampling.top_k, 40);
  EXPECT_EQ(r.gen.sampling.min_p, 0.1);
  EXPECT_EQ(r.gen.sampling.seed, 0xFFFFFFFFFFFFFFFFull);  // int64 -1, two's complement
  EXPECT_EQ(r.gen.stop, std::vector<std::string>{"END"});
  EXPECT_TRUE(r.gen.stream);
  EXPECT_TRUE(r.gen.include_usage);
  EXPECT_EQ(r.gen.top_logprobs, 3);
  EXPECT_FALSE(r.gen.draft);
}

TEST(OpenAIRequest, NullMeansAbsent) {
  const auto r = parse_chat_request(chat({{"max_tokens", nullptr}, {"temperature", nullptr}, {"stop", nullptr}}));
  EXPECT_FALSE(r.gen.max_tokens);
  EXPECT_EQ(r.gen.sampling.temperature, 1.0);
  EXPECT_TRUE(r.gen.stop.empty());
}

TEST(OpenAIRequest, WrongTypesNameTheField) {
  expect_chat_400(chat({{"max_tokens", "10"}}), "max_tokens");
  expect_chat_400(chat({{"max_tokens", 10.5}}), "max_tokens");
  expect_chat_400(chat({{"max_tokens", 1e30}}), "max_tokens");
  expect_chat_400(chat({{"temperature", "hot"}}), "temperature");
  expect_chat_400(chat({{"stream", "yes"}}), "stream");
  expect_chat_400(chat({{"seed", 1.5}}), "seed");
  expect_chat_400(chat({{"stop", 5}}), "stop");
  expect_chat_400(chat({{"stop", json::array({"a", 1})}}), "stop[1]");
  expect_chat_400(chat({{"stream_options", true}}), "stream_options");
  expect_chat_400(chat({{"stream_options", {{"include_usage", "yes"}}}}), "stream_options.include_usage");
  expect_chat_400(chat({{"user", 5}}), "user");
  expect_chat_400(chat({{"metadata", "x"}}), "metadata");
  expect_chat_400(chat({{"tools", "x"}}), "tools");
  expect_chat_400(chat({{"messages", "hi"}}), "messages");
  expect_chat_400(chat({{"model", 3}}), "model");
}

TEST(OpenAIRequest, RangesAreChecked) {
  expect_chat_400(chat({{"max_tokens", -1}}), "max_tokens");
  expect_chat_400(chat({{"max_tokens", 0}}), "max_tokens");
  expect_chat_400(chat({{"max_tokens", 99999999999}}), "max_tokens");
  expect_chat_400(chat({{"max_tokens", json::parse("18446744073709551615")}}), "max_tokens");
  expect_chat_400(chat({{"temperature", -0.1}}), "temperature");
  expect_chat_400(chat({{"temperature", 2.5}}), "temperature");
  expect_chat_400(chat({{"top_p", 0}}), "top_p");
  expect_chat_400(chat({{"top_p", 1.5}}), "top_p");
  expect_chat_400(chat({{"top_k", -2}}), "top_k");
  expect_chat_400(chat({{"min_p", 2}}), "min_p");
  expect_chat_400(chat({{"top_logprobs", 21}, {"logprobs", true}}), "top_logprobs");
  expect_chat_400(chat({{"top_logprobs", 2}}), "top_logprobs");  // without logprobs
  expect_chat_400(chat({{"stop", json::array({"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n",
                                              "o", "p", "q"})}}),
                  "stop");
}

TEST(OpenAIRequest, UnsupportedAndUnknownFields) {
  expect_chat_400(chat({{"n", 2}}), "n");
  expect_chat_400(chat({{"presence_penalty", 0.5}}), "presence_penalty");
  expect_chat_400(chat({{"frequency_penalty", -1}}), "frequency_penalty");
  expect_chat_400(chat({{"logit_bias", {{"5", 10}}}}), "logit_bias");
  expect_chat_400(chat({{"response_format", {{"type", "json_object"}}}}), "response_format");
  expect_chat_400(chat({{"functions", json::array()}}), "functions");
  expect_chat_400(chat({{"frobnicate", 1}}), "frobnicate");
  expect_chat_400(chat({{"prompt", "x"}}), "prompt");  // a completions field
  // Accepted and ignored.
  EXPECT_NO_THROW(parse_chat_request(chat({{"store", false}, {"parallel_tool_calls", true},
                                           {"response_format", {{"type", "text"}}}, {"service_tier", "auto"}})));
}

TEST(OpenAIRequest, Messages) {
  expect_chat_400({{"model", "m"}}, "messages");
  expect_chat_400(chat({{"messages", json::array()}}), "messages");
  expect_chat_400(chat({{"messages", json::array({"hi"})}}), "messages[0]");
  expect_chat_400(chat({{"messages", json::array({{{"content", "x"}}})}}), "messages[0].role");
  expect_chat_400(chat({{"messages", json::array({{{"role", "wizard"}, {"content", "x"}}})}}), "messages[0].role");
  expect_chat_400(chat({{"messages", json::array({{{"role", "user"}, {"content", 5}}})}}), "messages[0].content");
  expect_chat_400(chat({{"messages", json::array({{{"role", "user"}}})}}), "messages[0].content");
  expect_chat_400(chat({{"messages", json::parse(R"([{"role":"user","content":[{"type":"image_url"}]}])")}}),
                  "messages[0].content[0].type");
  expect_chat_400(chat({{"messages", json::parse(R"([{"role":"tool","content":"r"}])")}}),
                  "messages[0].tool_call_id");
  expect_chat_400(chat({{"messages", json::parse(R"([{"role":"assistant"}])")}}), "messages[0].content");
  expect_chat_400(
      chat({{"messages", json::parse(R"([{"role":"assistant","tool_calls":[{"type":"function",
        "function":{"name":"f","arguments":"not json"}}]}])")}}),
      "messages[0].tool_calls[0].function.arguments");
  expect_chat_400(
      chat({{"messages", json::parse(R"([{"role":"assistant","tool_calls":[{"type":"function",
        "function":{"name":"bad name","arguments":"{}"}}]}])")}}),
      "messages[0].tool_calls[0].function.name");

  const auto r = parse_chat_request(chat({{"messages", json::parse(R"([
      {"role":"system","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
      {"role":"assistant","content":null,"reasoning_content":"r","tool_calls":[{"id":"call_1","type":"function",
        "function":{"name":"f","arguments":"{\"x\":1}"}}],"extra":1},
      {"role":"tool","tool_call_id":"call_1","content":"42"}])")}}));
  // Compared without key order (messages are rendered field by field, not as JSON text).
  EXPECT_EQ(nlohmann::json::parse(r.messages.dump()), nlohmann::json::parse(R"([
      {"role":"system","content":"a\nb"},
      {"role":"assistant","content":"","reasoning_content":"r","tool_calls":[{"id":"call_1","type":"function",
        "function":{"name":"f","arguments":"{\"x\":1}"}}]},
      {"role":"tool","content":"42","tool_call_id":"call_1"}])"));
}

TEST(OpenAIRequest, ToolsAndToolChoice) {
  const json tools = json::parse(R"([{"type":"function","function":{"name":"a","parameters":{"type":"object"}}},
                                     {"type":"function","function":{"name":"b","description":"B"}}])");
  EXPECT_EQ(parse_chat_request(chat({{"tools", tools}})).tools, tools);
  EXPECT_EQ(parse_chat_request(chat({{"tools", tools}, {"tool_choice", "auto"}})).tools, tools);
  EXPECT_EQ(parse_chat_request(chat({{"tools", tools}, {"tool_choice", "none"}})).tools, json::array());
  EXPECT_EQ(parse_chat_request(chat({{"tools", tools}, {"tool_choice", {{"type", "function"},
                                                                        {"function", {{"name", "b"}}}}}}))
                .tools,
            json::array({tools[1]}));
  // Schemas keep their key order: the prompt renders them as written.
  const json ordered = json::parse(R"([{"type":"function","function":{"name":"a","parameters":
      {"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}},"required":["zeta"]}}}])");
  EXPECT_EQ(parse_chat_request(chat({{"tools", ordered}})).tools.dump(), ordered.dump());
  expect_chat_400(chat({{"tools", tools}, {"tool_choice", "required"}}), "tool_choice");
  expect_chat_400(chat({{"tools", tools}, {"tool_choice", "sometimes"}}), "tool_choice");
  expect_chat_400(chat({{"tools", tools}, {"tool_choice", {{"type", "function"}, {"function", {{"name", "zz"}}}}}}),
                  "tool_choice.function.name");
  expect_chat_400(chat({{"tool_choice", "auto"}}), "tool_choice");
  expect_chat_400(chat({{"tools", json::parse(R"([{"type":"retrieval"}])")}}), "tools[0].type");
  expect_chat_400(chat({{"tools", json::parse(R"([{"type":"function","function":{"name":""}}])")}}),
                  "tools[0].function.name");
  expect_chat_400(chat({{"tools", json::parse(R"([{"type":"function","function":{"name":"f","parameters":3}}])")}}),
                  "tools[0].function.parameters");
}

TEST(OpenAIRequest, Reasoning) {
  EXPECT_FALSE(parse_chat_request(chat({{"reasoning_effort", "none"}})).thinking);
  const auto high = parse_chat_request(chat({{"reasoning_effort", "high"}}));
  EXPECT_TRUE(high.thinking);
  EXPECT_EQ(high.reasoning_effort, "high");
  EXPECT_TRUE(parse_chat_request(chat({{"reasoning", {{"enabled", true}}}})).thinking);
  EXPECT_FALSE(parse_chat_request(chat({{"reasoning_effort", "max"}, {"reasoning", {{"enabled", false}}}})).thinking);
  EXPECT_EQ(parse_chat_request(chat({{"reasoning", {{"effort", "max"}}}})).reasoning_effort, "max");
  expect_chat_400(chat({{"reasoning_effort", "extreme"}}), "reasoning_effort");
  expect_chat_400(chat({{"reasoning", {{"effort", 3}}}}), "reasoning.effort");
  expect_chat_400(chat({{"reasoning", true}}), "reasoning");
}

TEST(OpenAIRequest, Completions) {
  auto parse = [](json body) { return parse_completion_request(body); };
  EXPECT_EQ(parse({{"prompt", "abc"}}).prompt_text, "abc");
  EXPECT_EQ(parse({{"prompt", json::array({"abc"})}}).prompt_text, "abc");
  EXPECT_EQ(parse({{"prompt", json::array({5, 6, 7})}}).prompt_ids, (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(parse({{"prompt", json::array({json::array({5, 6})})}}).prompt_ids, (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(parse({{"prompt", "a"}, {"logprobs", 2}}).gen.top_logprobs, 2);

  auto expect_400 = [](json body, const std::string& param) {
    const ApiError e = error_of([&] { parse_completion_request(body); });
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.param, param) << body.dump() << " -> " << e.what();
  };
  expect_400(json::object(), "prompt");
  expect_400({{"prompt", ""}}, "prompt");
  expect_400({{"prompt", json::array()}}, "prompt");
  expect_400({{"prompt", 5}}, "prompt");
  expect_400({{"prompt", json::array({1, -2})}}, "prompt");
  expect_400({{"prompt", json::array({1, 2.5})}}, "prompt");
  expect_400({{"prompt", json::array({1, 4294967296})}}, "prompt");
  expect_400({{"prompt", json::array({"a", "b"})}}, "prompt");
  expect_400({{"prompt", "a"}, {"echo", true}}, "echo");
  expect_400({{"prompt", "a"}, {"best_of", 3}}, "best_of");
  expect_400({{"prompt", "a"}, {"suffix", "z"}}, "suffix");
  expect_400({{"prompt", "a"}, {"logprobs", true}}, "logprobs");
  expect_400({{"prompt", "a"}, {"messages", json::array()}}, "messages");
  expect_400(json::array({1}), "");
}

TEST(OpenAIRequest, TokenizeAndDetokenize) {
  EXPECT_EQ(parse_tokenize_request({{"prompt", "x"}}).prompt, "x");
  EXPECT_TRUE(parse_tokenize_request({{"messages", json::parse(R"([{"role":"user","content":"x"}])")}}).chat);
  EXPECT_EQ(parse_detokenize_request({{"tokens", json::array({1, 2})}}).tokens, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(error_of([] { parse_tokenize_request(json::object()); }).param, "prompt");
  EXPECT_EQ(error_of([] { parse_detokenize_request({{"tokens", "x"}}); }).param, "tokens");
  EXPECT_EQ(error_of([] { parse_detokenize_request({{"tokens", json::array({-1})}}); }).param, "tokens");
}

}  // namespace
}  // namespace plumb::server
