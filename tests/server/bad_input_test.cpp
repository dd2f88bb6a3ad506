// The bad-input suite: malformed and hostile requests (broken JSON, invalid UTF-8, huge numbers, wrong types,
// 10 MB bodies with and without Content-Length, missing or wrong keys, unknown routes, roles and fields, prompts
// past the context). Each must get its exact 4xx status and OpenAI error type (and code or param where one
// applies), and after each the server must still serve a normal request with the exact solo-run tokens.
#include <gtest/gtest.h>

// Designated initializers leave the other fields at their defaults on purpose (GCC 12 warns regardless).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <fmt/format.h>

#include "server_harness.h"

namespace plumb::test {
namespace {

const std::string kKey = "test-key";

struct BadCase {
  std::string name;
  std::string method = "POST";
  std::string path = "/v1/chat/completions";
  std::string body;
  int status = 400;
  std::string code;   // expected error.code ("" = null)
  std::string param;  // expected error.param ("" = not checked)
  httplib::Headers headers = {{"Authorization", "Bearer " + kKey}};
  bool chunked = false;  // send the body without Content-Length
};

std::string chat_with(const std::string& fields) {
  return R"({"model":"toy","messages":[{"role":"user","content":"hi"}])" + (fields.empty() ? "" : "," + fields) + "}";
}
std::string completion_with(const std::string& fields) { return R"({"prompt":"abc",)" + fields + "}"; }
std::string deep_nesting(int depth) { return std::string(size_t(depth), '[') + std::string(size_t(depth), ']'); }

std::vector<BadCase> bad_cases() {
  const std::string ten_mb = R"({"prompt":")" + std::string(10 << 20, 'a') + R"("})";
  std::string long_prompt = R"({"prompt":[65)";
  for (int i = 1; i < 300; ++i) long_prompt += fmt::format(",{}", 65 + i % 26);
  long_prompt += "]}";
  return {
      // Broken bodies.
      {.name = "broken json", .body = R"({"messages": [)", .code = "invalid_json"},
      {.name = "empty body", .body = "", .code = "invalid_json"},
      {.name = "trailing garbage", .body = chat_with("") + " x", .code = "invalid_json"},
      {.name = "single quotes", .body = "{'messages': []}", .code = "invalid_json"},
      {.name = "NaN literal", .body = chat_with(R"("temperature":NaN)"), .code = "invalid_json"},
      {.name = "number overflow 1e400", .body = chat_with(R"("temperature":1e400)"), .code = "invalid_json"},
      {.name = "invalid utf-8 byte", .body = "{\"prompt\":\"ab\xff\xfe\"}", .code = "invalid_json"},
      {.name = "overlong utf-8", .body = "{\"prompt\":\"\xc0\xaf\"}", .code = "invalid_json"},
      {.name = "utf-8 surrogate bytes", .body = "{\"prompt\":\"\xed\xa0\x80\"}", .code = "invalid_json"},
      {.name = "lone surrogate escape", .body = R"({"prompt":"\ud800"})", .code = "invalid_json"},
      {.name = "control char in string", .body = "{\"prompt\":\"a\x01\"}", .code = "invalid_json"},
      {.name = "nesting 100000 deep", .body = deep_nesting(100000), .code = "invalid_json"},
      {.name = "nesting 1000 deep in a field", .body = chat_with(R"("metadata":)" + deep_nesting(1000)),
       .code = "invalid_json"},
      {.name = "body is null", .body = "null"},
      {.name = "body is an array", .body = "[]"},
      {.name = "body is a string", .body = R"("hello")"},
      // Size limits.
      {.name = "10 MB with Content-Length", .path = "/v1/completions", .body = ten_mb, .status = 413,
       .code = "request_too_large"},
      {.name = "10 MB chunked", .path = "/v1/completions", .body = ten_mb, .status = 413,
       .code = "request_too_large", .chunked = true},
      // Authentication.
      {.name = "missing key", .body = chat_with(""), .status = 401, .code = "invalid_api_key", .headers = {}},
      {.name = "wrong key", .body = chat_with(""), .status = 401, .code = "invalid_api_key",
       .headers = {{"Authorization", "Bearer wrong"}}},
      {.name = "bearer without key", .body = chat_with(""), .status = 401, .code = "invalid_api_key",
       .headers = {{"Authorization", "Bearer "}}},
      {.name = "basic auth", .body = chat_with(""), .status = 401, .code = "invalid_api_key",
       .headers = {{"Authorization", "Basic dGVzdC1rZXk6"}}},
      {.name = "key prefix only", .body = chat_with(""), .status = 401, .code = "invalid_api_key",
       .headers = {{"Authorization", "Bearer test-ke"}}},
      // Routes and models.
      {.name = "unknown route", .path = "/v1/engines", .body = chat_with(""), .status = 404, .code = "unknown_url"},
      {.name = "GET on a POST route", .method = "GET", .status = 405, .code = "method_not_allowed"},
      {.name = "PUT on a POST route", .method = "PUT", .body = chat_with(""), .status = 405,
       .code = "method_not_allowed"},
      {.name = "unknown model", .body = R"({"model":"gpt-4","messages":[{"role":"user","content":"x"}]})",
       .status = 404, .code = "model_not_found", .param = "model"},
      {.name = "unknown model by path", .method = "GET", .path = "/v1/models/gpt-4", .status = 404,
       .code = "model_not_found"},
      // Wrong types and ranges.
      {.name = "max_tokens string", .body = chat_with(R"("max_tokens":"10")"), .param = "max_tokens"},
      {.name = "max_tokens negative", .body = chat_with(R"("max_tokens":-5)"), .param = "max_tokens"},
      {.name = "max_tokens zero", .body = chat_with(R"("max_tokens":0)"), .param = "max_tokens"},
      {.name = "max_tokens float", .body = chat_with(R"("max_tokens":12.5)"), .param = "max_tokens"},
      {.name = "max_tokens 1e30", .body = chat_with(R"("max_tokens":1e30)"), .param = "max_tokens"},
      {.name = "max_tokens 2^64", .body = chat_with(R"("max_tokens":18446744073709551616)"),
       .param = "max_tokens"},
      {.name = "max_tokens past int32", .body = chat_with(R"("max_tokens":4294967296)"), .param = "max_tokens"},
      {.name = "temperature negative", .body = chat_with(R"("temperature":-1)"), .param = "temperature"},
      {.name = "temperature string", .body = chat_with(R"("temperature":"hot")"), .param = "temperature"},
      {.name = "top_p zero", .body = chat_with(R"("top_p":0)"), .param = "top_p"},
      {.name = "top_k negative", .body = chat_with(R"("top_k":-7)"), .param = "top_k"},
      {.name = "min_p above one", .body = chat_with(R"("min_p":1.5)"), .param = "min_p"},
      {.name = "seed string", .body = chat_with(R"("seed":"x")"), .param = "seed"},
      {.name = "seed past int64", .body = chat_with(R"("seed":99999999999999999999)"), .param = "seed"},
      {.name = "stream string", .body = chat_with(R"("stream":"yes")"), .param = "stream"},
      {.name = "stop number", .body = chat_with(R"("stop":123)"), .param = "stop"},
      {.name = "stop array with null", .body = chat_with(R"("stop":["a",null])"), .param = "stop[1]"},
      {.name = "n is 2", .body = chat_with(R"("n":2)"), .param = "n"},
      {.name = "logprobs string", .body = chat_with(R"("logprobs":"yes")"), .param = "logprobs"},
      {.name = "top_logprobs 50", .body = chat_with(R"("logprobs":true,"top_logprobs":50)"),
       .param = "top_logprobs"},
      {.name = "unknown field", .body = chat_with(R"("temprature":0.5)"), .param = "temprature"},
      {.name = "penalty not supported", .body = chat_with(R"("presence_penalty":1)"), .param = "presence_penalty"},
      {.name = "json response format", .body = chat_with(R"("response_format":{"type":"json_object"})"),
       .param = "response_format"},
      // Messages and tools.
      {.name = "messages missing", .body = R"({"model":"toy"})", .param = "messages"},
      {.name = "messages an object", .body = R"({"messages":{"role":"user"}})", .param = "messages"},
      {.name = "messages empty", .body = R"({"messages":[]})", .param = "messages"},
      {.name = "unknown role", .body = R"({"messages":[{"role":"wizard","content":"x"}]})",
       .param = "messages[0].role"},
      {.name = "role a number", .body = R"({"messages":[{"role":1,"content":"x"}]})", .param = "messages[0].role"},
      {.name = "content a number", .body = R"({"messages":[{"role":"user","content":5}]})",
       .param = "messages[0].content"},
      {.name = "image content", .body = R"({"messages":[{"role":"user","content":[{"type":"image_url",
        "image_url":{"url":"http://x"}}]}]})",
       .param = "messages[0].content[0].type"},
      {.name = "tool result without id", .body = R"({"messages":[{"role":"tool","content":"42"}]})",
       .param = "messages[0].tool_call_id"},
      {.name = "tool arguments not json", .body = R"({"messages":[{"role":"assistant","tool_calls":[{"id":"c",
        "type":"function","function":{"name":"f","arguments":"{oops"}}]}]})",
       .param = "messages[0].tool_calls[0].function.arguments"},
      {.name = "tool not a function", .body = chat_with(R"("tools":[{"type":"code_interpreter"}])"),
       .param = "tools[0].type"},
      {.name = "tool name with quote", .body = chat_with(R"("tools":[{"type":"function","function":{"name":"a\"b"}}])"),
       .param = "tools[0].function.name"},
      {.name = "tool_choice unknown", .body = chat_with(R"("tools":[{"type":"function","function":{"name":"f"}}],
        "tool_choice":"always")"),
       .param = "tool_choice"},
      {.name = "tool_choice without tools", .body = chat_with(R"("tool_choice":"auto")"), .param = "tool_choice"},
      {.name = "reasoning effort unknown", .body = chat_with(R"("reasoning_effort":"ludicrous")"),
       .param = "reasoning_effort"},
      // Prompts and the context.
      {.name = "prompt past the context", .path = "/v1/completions", .body = long_prompt,
       .code = "context_length_exceeded", .param = "prompt"},
      {.name = "prompt + max_tokens past the context", .path = "/v1/completions",
       .body = completion_with(R"("max_tokens":254)"), .code = "context_length_exceeded", .param = "max_tokens"},
      {.name = "token id past the vocabulary", .path = "/v1/completions", .body = R"({"prompt":[1,2,128]})",
       .param = "prompt"},
      {.name = "negative token id", .path = "/v1/completions", .body = R"({"prompt":[1,-2]})", .param = "prompt"},
      {.name = "empty prompt", .path = "/v1/completions", .body = R"({"prompt":""})", .param = "prompt"},
      {.name = "batched prompts", .path = "/v1/completions", .body = R"({"prompt":["a","b"]})", .param = "prompt"},
      {.name = "chat field on completions", .path = "/v1/completions",
       .body = R"({"prompt":"a","messages":[]})", .param = "messages"},
      {.name = "tokenize without prompt", .path = "/tokenize", .body = "{}", .param = "prompt"},
      {.name = "detokenize past the vocabulary", .path = "/detokenize", .body = R"({"tokens":[1,500]})",
       .param = "tokens"},
  };
}

class BadInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer({.api_key = kKey}); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static TestServer* server_;
};
TestServer* BadInput::server_ = nullptr;

httplib::Result send(int port, const BadCase& c) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  if (c.method == "GET") return client.Get(c.path.c_str(), c.headers);
  if (c.method == "PUT") return client.Put(c.path.c_str(), c.headers, c.body, "application/json");
  if (!c.chunked) return client.Post(c.path.c_str(), c.headers, c.body, "application/json");
  return client.Post(
      c.path.c_str(), c.headers,
      [&c](size_t offset, httplib::DataSink& sink) {
        const size_t n = std::min<size_t>(1 << 16, c.body.size() - offset);
        sink.write(c.body.data() + offset, n);
        if (offset + n == c.body.size()) sink.done();
        return true;
      },
      "application/json");
}

TEST_F(BadInput, EachGetsItsErrorAndTheServerKeepsServing) {
  const auto cases = bad_cases();
  ASSERT_GE(cases.size(), 50u);
  const std::vector<int32_t> normal_prompt = {'<', 'u', 's', 'e', 'r', '>', 'h', 'i', '\n',
                                              '<', 'a', 's', 's', 'i', 's', 't', 'a', 'n', 't', '>'};
  engine::SamplingParams sampling;
  sampling.seed = 11;
  const std::string expected_sha = solo_sha(normal_prompt, sampling, 16);
  const json normal = {{"model", "toy"}, {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})},
                       {"max_tokens", 16}, {"seed", 11}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = send(server_->port(), c);
    ASSERT_TRUE(r) << "no response: " << httplib::to_string(r.error());
    EXPECT_EQ(r->status, c.status) << r->body.substr(0, 300);
    const json err = json::parse(r->body, nullptr, false);
    ASSERT_FALSE(err.is_discarded()) << "not JSON: " << r->body.substr(0, 200);
    ASSERT_TRUE(err.contains("error")) << r->body.substr(0, 200);
    EXPECT_EQ(err["error"]["type"], "invalid_request_error");
    EXPECT_TRUE(err["error"]["message"].is_string());
    if (c.code.empty()) {
      EXPECT_TRUE(err["error"]["code"].is_null()) << err.dump();
    } else {
      EXPECT_EQ(err["error"]["code"], c.code);
    }
    if (!c.param.empty()) {
      EXPECT_EQ(err["error"]["param"], c.param);
    }

    auto ok = server_->post("/v1/chat/completions", normal);
    ASSERT_TRUE(ok);
    ASSERT_EQ(ok->status, 200) << ok->body;
    EXPECT_EQ(json::parse(ok->body)["plumb"]["token_sha256"], expected_sha);
  }
  EXPECT_TRUE(server_->wait_engine_idle());
}

TEST_F(BadInput, OverlongRequestLineGets414) {
  httplib::Client client("127.0.0.1", server_->port());
  auto r = client.Get(("/v1/models?" + std::string(20000, 'x')).c_str(), {{"Authorization", "Bearer " + kKey}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 414);
  EXPECT_EQ(json::parse(r->body)["error"]["type"], "invalid_request_error");
  EXPECT_EQ(server_->client().Get("/v1/models")->status, 200);
}

}  // namespace
}  // namespace plumb::test
