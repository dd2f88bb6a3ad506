// Chat through the server with DeepSeek-V4's real text side (the tiny tokenizer, the official chat encoding and
// completion parser) and a scripted model that writes a chosen reply: tool calls come back in OpenAI's shape,
// whole and streamed; thinking output lands in reasoning_content; the tool round trip renders the call and
// its result into the next prompt exactly as the chat encoding does.
#include <gtest/gtest.h>

// Designated initializers leave the other fields at their defaults on purpose (GCC 12 warns regardless).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "server/dsv4_text.h"
#include "server_harness.h"
#include "text/chat_encoding.h"
#include "text/chat_json.h"
#include "text/tiny_tokenizer.h"

namespace plumb::test {
namespace {

constexpr int32_t kVocab = 1024;

// Writes `script` after each prompt (greedy), then end-of-sentence: logits peak on the script's next token,
// counted from the slot's first row that asks for logits (the prompt's last row).
class ScriptedModel : public model::Model {
 public:
  ScriptedModel(std::vector<int32_t> script, int32_t eos) : script_(std::move(script)), eos_(eos) {
    info_ = {"scripted", kVocab, 4096, 4, 64, false};
    history_.resize(4);
    reply_start_.assign(4, -1);
  }
  const model::ModelInfo& info() const override { return info_; }
  void reset_slot(int32_t slot) override {
    history_[size_t(slot)].clear();
    reply_start_[size_t(slot)] = -1;
  }
  int64_t slot_position(int32_t slot) const override { return int64_t(history_[size_t(slot)].size()); }
  void forward(std::span<const model::Row> rows, std::span<float> logits) override {
    for (size_t r = 0; r < rows.size(); ++r) {
      const auto& row = rows[r];
      history_.at(size_t(row.slot)).push_back(row.token);
      if (!row.want_logits) continue;
      auto& start = reply_start_[size_t(row.slot)];
      if (start < 0) start = row.position;
      const size_t k = size_t(row.position - start);
      auto out = logits.subspan(r * size_t(kVocab), size_t(kVocab));
      std::fill(out.begin(), out.end(), 0.0f);
      out[size_t(k < script_.size() ? script_[k] : eos_)] = 20.0f;
    }
  }
  void rewind(int32_t slot, int64_t position) override { history_.at(size_t(slot)).resize(size_t(position)); }
  model::SlotSnapshot snapshot(int32_t) const override { fail("scripted model keeps no snapshots"); }
  void restore(int32_t, const model::SlotSnapshot&) override { fail("scripted model keeps no snapshots"); }
  void draft_forward(std::span<const model::DraftRow>, std::span<float>) override { fail("no MTP"); }

 private:
  model::ModelInfo info_;
  std::vector<int32_t> script_;
  int32_t eos_;
  std::vector<std::vector<int32_t>> history_;
  std::vector<int64_t> reply_start_;
};

class ScriptedServer {
 public:
  explicit ScriptedServer(const std::string& reply)
      : text_(text::Tokenizer::from_json(text::tiny_tokenizer_json(kVocab), "tiny tokenizer")),
        eos_(text_.tokenizer().require_token_id("<｜end▁of▁sentence｜>")),
        model_(text_.encode(reply), eos_),
        engine_(model_, config(eos_), text_.text_streams()),
        api_(server::HttpOptions{.host = "127.0.0.1", .port = 0}, "tiny") {
    engine_.start();
    port_ = api_.start();
    api_.serve_model({"tiny", 1700000000, 4096, &engine_, &text_});
  }
  ~ScriptedServer() { api_.shutdown(std::chrono::milliseconds(0)); }

  // The reply body; fails the test when there is no reply.
  httplib::Response post(const std::string& path, const json& body) {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    auto r = c.Post(path.c_str(), body.dump(), "application/json");
    if (!r) {
      ADD_FAILURE() << "no reply from " << path << ": " << httplib::to_string(r.error());
      return {};
    }
    return *r;
  }
  const server::Dsv4Text& text() const { return text_; }

 private:
  static engine::EngineConfig config(int32_t eos) {
    engine::EngineConfig c;
    c.parallel = 2;
    c.eos_token_ids = {eos};
    return c;
  }
  server::Dsv4Text text_;
  int32_t eos_;
  ScriptedModel model_;
  engine::Engine engine_;
  server::ApiServer api_;
  int port_ = 0;
};

const json kTools = json::parse(R"([{"type":"function","function":{"name":"get_weather",
    "description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},
    "required":["city"]}}}])");

const std::string kToolReply =
    "Let me check.\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
    "<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n"
    "</｜DSML｜invoke>\n</｜DSML｜tool_calls>";

json weather_request(bool stream) {
  return {{"messages", json::array({{{"role", "user"}, {"content", "Weather in Paris?"}}})},
          {"tools", kTools},
          {"temperature", 0},
          {"stream", stream}};
}

TEST(ChatDsv4, ToolCallsComeBackInOpenAIShape) {
  ScriptedServer s(kToolReply);
  auto r = s.post("/v1/chat/completions", weather_request(false));
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  const auto& choice = j["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u);
  const auto& call = choice["message"]["tool_calls"][0];
  EXPECT_EQ(call["type"], "function");
  EXPECT_EQ(call["id"].get<std::string>().rfind("call_", 0), 0u);
  EXPECT_EQ(call["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(call["function"]["arguments"].get<std::string>()), json::parse(R"({"city":"Paris"})"));
}

TEST(ChatDsv4, StreamedToolCallsEqualTheWholeReply) {
  ScriptedServer s(kToolReply);
  auto r = s.post("/v1/chat/completions", weather_request(true));
  ASSERT_EQ(r.status, 200);
  const auto events = sse_events(r.body);
  ASSERT_EQ(events.back(), "[DONE]");
  std::string content;
  json calls = json::array();
  std::string finish;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    const json chunk = json::parse(events[i]);
    const auto& choice = chunk["choices"][0];
    const auto& delta = choice["delta"];
    if (delta.contains("content")) content += delta["content"].get<std::string>();
    if (delta.contains("tool_calls"))
      for (const auto& c : delta["tool_calls"]) calls.push_back(c);
    if (!choice["finish_reason"].is_null()) finish = choice["finish_reason"];
  }
  EXPECT_EQ(content, "Let me check.");
  EXPECT_EQ(finish, "tool_calls");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["index"], 0);
  EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(calls[0]["function"]["arguments"].get<std::string>()), json::parse(R"({"city":"Paris"})"));
}

TEST(ChatDsv4, ThinkingGoesToReasoningContent) {
  ScriptedServer s("The user greets me.</think>Hello there!");
  json body = {{"messages", json::array({{{"role", "user"}, {"content", "Hi"}}})},
               {"temperature", 0},
               {"reasoning_effort", "high"}};
  const json whole = json::parse(s.post("/v1/chat/completions", body).body);
  EXPECT_EQ(whole["choices"][0]["message"]["reasoning_content"], "The user greets me.");
  EXPECT_EQ(whole["choices"][0]["message"]["content"], "Hello there!");
  EXPECT_EQ(whole["choices"][0]["finish_reason"], "stop");

  body["stream"] = true;
  const auto events = sse_events(s.post("/v1/chat/completions", body).body);
  std::string reasoning, content;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    const json chunk = json::parse(events[i]);
    const auto& delta = chunk["choices"][0]["delta"];
    if (delta.contains("reasoning_content")) reasoning += delta["reasoning_content"].get<std::string>();
    if (delta.contains("content")) content += delta["content"].get<std::string>();
  }
  EXPECT_EQ(reasoning, "The user greets me.");
  EXPECT_EQ(content, "Hello there!");
}

TEST(ChatDsv4, UnparsableOutputIsStillAnswered) {
  // A tool block that never closes (as a cut-off or random model writes) comes back as plain content.
  const std::string broken = "Sure\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">";
  ScriptedServer s(broken);
  const json whole = json::parse(s.post("/v1/chat/completions", weather_request(false)).body);
  EXPECT_EQ(whole["choices"][0]["message"]["content"], broken);
  EXPECT_EQ(whole["choices"][0]["finish_reason"], "stop");
  EXPECT_FALSE(whole["choices"][0]["message"].contains("tool_calls"));
  std::string content;
  const auto events = sse_events(s.post("/v1/chat/completions", weather_request(true)).body);
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    const json chunk = json::parse(events[i]);
    const auto& delta = chunk["choices"][0]["delta"];
    if (delta.contains("content")) content += delta["content"].get<std::string>();
  }
  EXPECT_EQ(content, broken);
}

TEST(ChatDsv4, ToolRoundTripRendersCallAndResult) {
  ScriptedServer s("It is sunny in Paris.");
  const json messages = json::parse(R"([
    {"role":"user","content":"Weather in Paris?"},
    {"role":"assistant","content":"Let me check.","tool_calls":[{"id":"call_1","type":"function",
      "function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},
    {"role":"tool","tool_call_id":"call_1","content":"{\"sky\": \"sunny\"}"}])");
  json body = {{"messages", messages}, {"tools", kTools}, {"temperature", 0}};
  auto r = s.post("/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["choices"][0]["message"]["content"], "It is sunny in Paris.");
  // The prompt the server built is the chat encoding's rendering of the same conversation and tools.
  text::ChatRequestOptions opts;
  opts.tools = kTools;
  const std::string rendered = text::render_chat_prompt(text::chat_messages_from_json(messages), opts);
  EXPECT_NE(rendered.find("<tool_result>{\"sky\": \"sunny\"}</tool_result>"), std::string::npos);
  EXPECT_NE(rendered.find("<｜DSML｜invoke name=\"get_weather\">"), std::string::npos);
  EXPECT_EQ(j["usage"]["prompt_tokens"], s.text().encode(rendered).size());
  auto tok = s.post("/tokenize", {{"messages", messages}});
  ASSERT_EQ(tok.status, 200);
  const std::string no_tools = text::render_chat_prompt(text::chat_messages_from_json(messages), {});
  EXPECT_EQ(json::parse(tok.body)["tokens"], s.text().encode(no_tools));
}

}  // namespace
}  // namespace plumb::test
