// DeepSeek-V4 chat encoding and completion parsing against the official encoding_dsv4.py: every case of
// tests/text/data/chat_reference.jsonl (written by tools/chat_reference.py, which runs the official code)
// must render byte-exact, parse to the same fields, or fail where the official code fails.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "base/error.h"
#include "text/chat_encoding.h"
#include "text/chat_json.h"
#include "text/chat_parse.h"

namespace plumb::text {
namespace {

const std::filesystem::path kCases = std::filesystem::path(PLUMB_SOURCE_DIR) / "tests/text/data/chat_reference.jsonl";

TEST(ChatReference, EveryCaseMatchesTheOfficialEncoder) {
  std::ifstream in(kCases);
  ASSERT_TRUE(in) << kCases;
  std::string line;
  int renders = 0, parses = 0, errors = 0;
  while (std::getline(in, line)) {
    const auto c = nlohmann::ordered_json::parse(line);
    const std::string name = c["name"];
    const bool thinking = c["thinking"];
    if (name == "parse") {
      const std::string completion = c["completion"];
      SCOPED_TRACE("parse " + nlohmann::json(completion).dump());
      if (c.contains("error")) {
        EXPECT_THROW(parse_completion(completion, thinking), Error);
        ++errors;
        continue;
      }
      const ParsedCompletion parsed = parse_completion(completion, thinking);
      const auto& want = c["parsed"];
      EXPECT_EQ(parsed.reasoning_content, want["reasoning_content"].get<std::string>());
      EXPECT_EQ(parsed.content, want["content"].get<std::string>());
      ASSERT_EQ(parsed.tool_calls.size(), want["tool_calls"].size());
      for (size_t i = 0; i < parsed.tool_calls.size(); ++i) {
        EXPECT_EQ(parsed.tool_calls[i].name, want["tool_calls"][i]["name"].get<std::string>());
        EXPECT_EQ(parsed.tool_calls[i].arguments, want["tool_calls"][i]["arguments"].get<std::string>());
      }
      ++parses;
      continue;
    }
    ChatRequestOptions options;
    options.thinking = thinking;
    options.drop_thinking = c["drop_thinking"];
    options.add_bos = c["add_bos"];
    if (!c["reasoning_effort"].is_null()) options.reasoning_effort = c["reasoning_effort"].get<std::string>();
    SCOPED_TRACE(name + (thinking ? " thinking" : " chat") + (options.drop_thinking ? " drop" : " keep") + " effort " +
                 options.reasoning_effort.value_or("none") + (options.add_bos ? " bos" : " no-bos"));
    if (c.contains("error")) {
      EXPECT_THROW(render_chat_prompt(chat_messages_from_json(c["messages"]), options), Error);
      ++errors;
      continue;
    }
    EXPECT_EQ(render_chat_prompt(chat_messages_from_json(c["messages"]), options), c["prompt"].get<std::string>());
    ++renders;
  }
  EXPECT_GE(renders, 100);
  EXPECT_GE(parses, 5);
  EXPECT_GE(errors, 10);
}

}  // namespace
}  // namespace plumb::text
