// DeepSeek-V4 chat encoding on the four official test pairs (fixtures/encoding: input messages -> expected
// prompt, byte-exact), each rendered assistant turn parsed back into its message, the official README's
// examples, and plumb's own rule for request-level tools.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "base/error.h"
#include "test_support.h"
#include "text/chat_encoding.h"
#include "text/chat_json.h"
#include "text/chat_parse.h"
#include "text/chat_tokens.h"

namespace plumb::text {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The official test harness: case 1 keeps its tools beside the messages and puts them on the first one.
std::vector<ChatMessage> official_input(const std::filesystem::path& fixtures, int n) {
  const auto input = nlohmann::ordered_json::parse(read_file(fixtures / fmt::format("encoding/test_input_{}.json", n)));
  if (input.is_object()) {
    auto messages = chat_messages_from_json(input["messages"]);
    messages[0].tools = input["tools"];
    return messages;
  }
  return chat_messages_from_json(input);
}

bool official_thinking(int n) { return n != 4; }  // the official test renders case 4 in chat mode

TEST(ChatEncoding, OfficialPairsRenderByteExact) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  for (int n = 1; n <= 4; ++n) {
    ChatRequestOptions options;
    options.thinking = official_thinking(n);
    EXPECT_EQ(render_chat_prompt(official_input(fixtures, n), options),
              read_file(fixtures / fmt::format("encoding/test_output_{}.txt", n)))
        << "case " << n;
  }
}

// Each assistant turn of a rendered prompt: the text after <｜Assistant｜> (and after its <think>, </think> and
// task token) up to and including the end-of-sentence, with whether it holds reasoning.
struct RenderedTurn {
  std::string text;
  bool has_reasoning;
};
std::vector<RenderedTurn> assistant_turns(const std::string& prompt) {
  std::vector<RenderedTurn> turns;
  size_t at = 0;
  while ((at = prompt.find(kAssistant, at)) != std::string::npos) {
    at += kAssistant.size();
    RenderedTurn turn{"", false};
    if (prompt.compare(at, kThinkStart.size(), kThinkStart) == 0) {
      at += kThinkStart.size();
      turn.has_reasoning = true;
    } else if (prompt.compare(at, kThinkEnd.size(), kThinkEnd) == 0) {
      at += kThinkEnd.size();
    }
    for (const auto& [task, token] : kTaskTokens)
      if (prompt.compare(at, token.size(), token) == 0) at += token.size();
    const size_t end = prompt.find(kEos, at);
    if (end == std::string::npos) break;
    turn.text = prompt.substr(at, end + kEos.size() - at);
    turns.push_back(turn);
  }
  return turns;
}

TEST(ChatEncoding, ParsingEachRenderedAssistantTurnGivesBackItsMessage) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  for (int n = 1; n <= 4; ++n) {
    SCOPED_TRACE("case " + std::to_string(n));
    const auto messages = official_input(fixtures, n);
    ChatRequestOptions options;
    options.thinking = official_thinking(n);
    const auto turns = assistant_turns(render_chat_prompt(messages, options));
    std::vector<const ChatMessage*> assistants;
    for (const auto& m : messages)
      if (m.role == "assistant") assistants.push_back(&m);
    ASSERT_EQ(turns.size(), assistants.size());
    for (size_t i = 0; i < turns.size(); ++i) {
      const ChatMessage& want = *assistants[i];
      const ParsedCompletion got = parse_completion(turns[i].text, turns[i].has_reasoning);
      EXPECT_EQ(got.content, want.content);
      // Reasoning of turns before the last user turn is dropped from the prompt (case 2's first turn).
      if (turns[i].has_reasoning) {
        EXPECT_EQ(got.reasoning_content, want.reasoning_content);
      }
      ASSERT_EQ(got.tool_calls.size(), want.tool_calls.size());
      for (size_t k = 0; k < got.tool_calls.size(); ++k) {
        EXPECT_EQ(got.tool_calls[k].name, want.tool_calls[k].name);
        EXPECT_EQ(got.tool_calls[k].arguments, want.tool_calls[k].arguments);
      }
    }
  }
}

TEST(ChatEncoding, OfficialTestAssertionsHold) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  ChatRequestOptions thinking;
  thinking.thinking = true;
  const std::string prompt = render_chat_prompt(official_input(fixtures, 1), thinking);
  const auto turns = assistant_turns(prompt);
  ASSERT_EQ(turns.size(), 2u);
  const auto first = parse_completion(turns[0].text, true);
  EXPECT_EQ(first.reasoning_content, "The user wants to know the weather in Beijing. I should use the get_weather tool.");
  EXPECT_EQ(first.content, "");
  ASSERT_EQ(first.tool_calls.size(), 1u);
  EXPECT_EQ(first.tool_calls[0].name, "get_weather");
  EXPECT_EQ(nlohmann::json::parse(first.tool_calls[0].arguments),
            nlohmann::json::parse(R"({"location": "Beijing", "unit": "celsius"})"));
  const auto last = parse_completion(turns[1].text, true);
  EXPECT_EQ(last.reasoning_content, "Got the weather data. Let me format a nice response.");
  EXPECT_NE(last.content.find("22°C"), std::string::npos);
  EXPECT_TRUE(last.tool_calls.empty());
  EXPECT_EQ(render_chat_prompt(official_input(fixtures, 2), thinking).find("The user said hello"), std::string::npos);
}

// The quick-start example of the official encoding README.
TEST(ChatEncoding, ReadmeExample) {
  std::vector<ChatMessage> messages(2);
  messages[0].role = "system";
  messages[0].content = "You are a helpful assistant.";
  messages[1].role = "user";
  messages[1].content = "What is 2+2?";
  ChatRequestOptions options;
  options.thinking = true;
  EXPECT_EQ(render_chat_prompt(messages, options),
            "<｜begin▁of▁sentence｜>You are a helpful assistant.<｜User｜>What is 2+2?<｜Assistant｜><think>");
  const auto parsed = parse_completion("Simple arithmetic.</think>2 + 2 = 4.<｜end▁of▁sentence｜>", true);
  EXPECT_EQ(parsed.reasoning_content, "Simple arithmetic.");
  EXPECT_EQ(parsed.content, "2 + 2 = 4.");
  EXPECT_TRUE(parsed.tool_calls.empty());
}

TEST(ChatEncoding, RequestToolsGoOnTheFirstSystemMessage) {
  const auto tools = nlohmann::ordered_json::parse(
      R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])");
  ChatRequestOptions with_tools;
  with_tools.tools = tools;
  std::vector<ChatMessage> messages(1);
  messages[0].role = "user";
  messages[0].content = "hi";
  // No system message: an empty one is put first, so the tools block follows BOS directly.
  const std::string inserted = render_chat_prompt(messages, with_tools);
  EXPECT_EQ(inserted.rfind("<｜begin▁of▁sentence｜>\n\n## Tools\n\n", 0), 0u) << inserted;
  EXPECT_NE(inserted.find(R"({"name": "f", "parameters": {"type": "object"}})"), std::string::npos);
  // The same as putting the tools on a system message by hand.
  std::vector<ChatMessage> by_hand(2);
  by_hand[0].role = "system";
  by_hand[0].tools = tools;
  by_hand[1] = messages[0];
  EXPECT_EQ(render_chat_prompt(by_hand, ChatRequestOptions{}), inserted);
  // Given twice is ambiguous.
  EXPECT_THROW(render_chat_prompt(by_hand, with_tools), Error);
}

TEST(ChatEncoding, ArgumentsGivenAsAnObjectAreRenderedLikeTheirJsonText) {
  const auto as_text = chat_message_from_json(nlohmann::ordered_json::parse(
      R"({"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{\"b\": 1.0, \"a\": \"x\"}"}}]})"), 0);
  const auto as_object = chat_message_from_json(nlohmann::ordered_json::parse(
      R"({"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": {"b": 1.0, "a": "x"}}}]})"), 0);
  EXPECT_EQ(render_dsml_tool_calls(as_object.tool_calls), render_dsml_tool_calls(as_text.tool_calls));
  EXPECT_EQ(render_dsml_tool_calls(as_text.tool_calls),
            "\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"b\" string=\"false\">1.0</｜DSML｜parameter>\n"
            "<｜DSML｜parameter name=\"a\" string=\"true\">x</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>");
}

}  // namespace
}  // namespace plumb::text
