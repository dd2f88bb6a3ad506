// DeepSeek-V4's tokenizer against the official HF tokenizers library: every case of
// fixtures/tokenizer/dsv4/golden.jsonl (ids computed by npm tokenizers 0.23.2, no BOS added) must encode to
// exactly those ids and decode back to exactly the text.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "test_support.h"
#include "text/tokenizer.h"

namespace plumb::text {
namespace {

const Tokenizer& dsv4_tokenizer(const std::filesystem::path& fixtures) {
  static const Tokenizer tokenizer = Tokenizer::from_file(fixtures / "tokenizer/dsv4");
  return tokenizer;
}

TEST(Dsv4Golden, EncodesEveryCaseToTheReferenceIdsAndDecodesBack) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const auto golden_path = fixtures / "tokenizer/dsv4/golden.jsonl";
  std::ifstream in(golden_path);
  ASSERT_TRUE(in) << golden_path;
  const Tokenizer& tokenizer = dsv4_tokenizer(fixtures);
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto c = nlohmann::json::parse(line);
    const std::string text = c["text"];
    const auto want = c["ids"].get<std::vector<TokenId>>();
    EXPECT_EQ(tokenizer.encode(text, true), want) << "case " << cases << ": " << text;
    EXPECT_EQ(tokenizer.decode(want), text) << "case " << cases;
    ++cases;
  }
  EXPECT_GE(cases, 200);
}

TEST(Dsv4Golden, SpecialIdsComeFromTheFile) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const Tokenizer& tokenizer = dsv4_tokenizer(fixtures);
  // The ids DSV4.md lists for these strings.
  EXPECT_EQ(tokenizer.require_token_id("<｜begin▁of▁sentence｜>"), 0);
  EXPECT_EQ(tokenizer.require_token_id("<｜end▁of▁sentence｜>"), 1);
  EXPECT_EQ(tokenizer.require_token_id("<｜User｜>"), 128803);
  EXPECT_EQ(tokenizer.require_token_id("<｜Assistant｜>"), 128804);
  EXPECT_EQ(tokenizer.require_token_id("<think>"), 128821);
  EXPECT_EQ(tokenizer.require_token_id("</think>"), 128822);
  EXPECT_EQ(tokenizer.require_token_id("｜DSML｜"), 128825);
  EXPECT_EQ(tokenizer.require_token_id("<｜latest_reminder｜>"), 128828);
  EXPECT_TRUE(tokenizer.is_special(0));
  EXPECT_FALSE(tokenizer.is_special(128821));
  EXPECT_EQ(tokenizer.vocab_size(), 128846u);
}

}  // namespace
}  // namespace plumb::text
