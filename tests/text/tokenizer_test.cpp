// Tokenizer behaviour that needs no reference library: the tiny tokenizer loads and round-trips, special
// ids are found by their strings, edge inputs (empty, all special tokens), invalid input errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "base/error.h"
#include "test_support.h"
#include "text/tiny_tokenizer.h"
#include "text/tokenizer.h"

namespace plumb::text {
namespace {

const std::filesystem::path kData = std::filesystem::path(PLUMB_SOURCE_DIR) / "tests/text/data";

const std::vector<std::string> kTexts = {
    "Hello, world! How are you today?",
    "def fibonacci(n):\n    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)\n",
    "深度求索公司。こんにちは、世界。안녕하세요",
    "emoji 🦀👨‍👩‍👧 ❤️ and U+180E:\u180e NBSP:\u00a0",
    "  spaces   and\ttabs\r\n\n",
    "<｜User｜>hi<｜Assistant｜><think>hm</think>ok<｜end▁of▁sentence｜>",
};

TEST(TinyTokenizerLoaded, SpecialIdsAreFoundByStringAtTheEndOfTheIdRange) {
  const int vocab_size = 1024;
  const Tokenizer tokenizer = Tokenizer::from_json(tiny_tokenizer_json(vocab_size), "tiny");
  EXPECT_EQ(tokenizer.vocab_size(), size_t(vocab_size));
  const auto& specials = tiny_tokenizer_special_tokens();
  for (size_t i = 0; i < specials.size(); ++i) {
    const TokenId id = tokenizer.require_token_id(specials[i]);
    EXPECT_EQ(id, vocab_size - TokenId(specials.size()) + TokenId(i)) << specials[i];
    EXPECT_EQ(tokenizer.encode(specials[i], true), std::vector<TokenId>{id}) << specials[i];
    EXPECT_EQ(tokenizer.decode(std::vector<TokenId>{id}), specials[i]);
  }
  EXPECT_TRUE(tokenizer.is_special(tokenizer.require_token_id("<｜end▁of▁sentence｜>")));
  EXPECT_FALSE(tokenizer.is_special(tokenizer.require_token_id("<think>")));
}

TEST(TinyTokenizerLoaded, RoundTripsText) {
  for (int vocab_size : {tiny_tokenizer_min_vocab_size(), 512, 2048}) {
    const Tokenizer tokenizer = Tokenizer::from_json(tiny_tokenizer_json(vocab_size), "tiny");
    for (const auto& text : kTexts) {
      const auto ids = tokenizer.encode(text, true);
      EXPECT_EQ(tokenizer.decode(ids), text) << vocab_size;
      for (const TokenId id : ids) EXPECT_LT(id, vocab_size);
    }
  }
}

TEST(TinyTokenizerLoaded, LargerVocabulariesGiveFewerTokens) {
  const Tokenizer small = Tokenizer::from_json(tiny_tokenizer_json(tiny_tokenizer_min_vocab_size()), "small");
  const Tokenizer large = Tokenizer::from_json(tiny_tokenizer_json(2048), "large");
  const std::string text = "The tokenizer turns text into tokens and the detokenizer turns tokens back into text.";
  EXPECT_EQ(small.encode(text, true).size(), text.size());  // no merges: one token per byte
  EXPECT_LT(large.encode(text, true).size(), text.size() / 3);
}

// The reference data in tests/text/data was computed from this exact file; the generator must keep
// producing it byte for byte (same vocab_size, same bytes, on every machine).
TEST(TinyTokenizerLoaded, GeneratorOutputIsPinned) {
  std::ifstream in(kData / "tiny400.tokenizer.json", std::ios::binary);
  ASSERT_TRUE(in);
  std::ostringstream pinned;
  pinned << in.rdbuf();
  EXPECT_EQ(tiny_tokenizer_json(400), pinned.str())
      << "tiny_tokenizer_json changed: regenerate tests/text/data (see tools/node/tokenizer_reference.js)";
}

class Dsv4Tokenizer : public ::testing::Test {
 protected:
  static const Tokenizer& get() {
    static const Tokenizer tokenizer = Tokenizer::from_file(*test::fixtures_dir() / "tokenizer/dsv4");
    return tokenizer;
  }
  void SetUp() override {
    if (!test::fixtures_dir()) GTEST_SKIP() << "fixtures not found (set PLUMB_FIXTURES to shared/fixtures)";
  }
};

TEST_F(Dsv4Tokenizer, EmptyInputGivesNoIdsAndEmptyIdsGiveNoText) {
  EXPECT_TRUE(get().encode("", true).empty());
  EXPECT_TRUE(get().encode("", false).empty());
  EXPECT_EQ(get().decode(std::vector<TokenId>{}), "");
}

TEST_F(Dsv4Tokenizer, InputMadeOnlyOfSpecialTokens) {
  const Tokenizer& t = get();
  const std::vector<std::string> strings = {"<｜begin▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<think>",
                                            "</think>", "｜DSML｜", "<｜latest_reminder｜>", "<｜end▁of▁sentence｜>"};
  std::string text;
  std::vector<TokenId> want;
  for (int round = 0; round < 5000; ++round) {
    for (const auto& s : strings) {
      text += s;
      want.push_back(t.require_token_id(s));
    }
  }
  EXPECT_EQ(t.encode(text, true), want);
  EXPECT_EQ(t.decode(want), text);
  EXPECT_EQ(t.decode(want, /*skip_special=*/true).find("<｜begin▁of▁sentence｜>"), std::string::npos);
}

TEST_F(Dsv4Tokenizer, WithoutAllowSpecialSpecialStringsAreText) {
  const Tokenizer& t = get();
  const std::string text = "<｜begin▁of▁sentence｜>hi<｜end▁of▁sentence｜><｜User｜><think>";
  const auto ids = t.encode(text, false);
  const TokenId bos = t.require_token_id("<｜begin▁of▁sentence｜>");
  const TokenId eos = t.require_token_id("<｜end▁of▁sentence｜>");
  for (const TokenId id : ids) {
    EXPECT_NE(id, bos);
    EXPECT_NE(id, eos);
  }
  EXPECT_EQ(t.decode(ids), text);
  // Added tokens not marked special stay tokens, as in HF's encode_special_tokens mode.
  const auto user = t.encode("<｜User｜>", false);
  EXPECT_EQ(user, std::vector<TokenId>{t.require_token_id("<｜User｜>")});
}

TEST_F(Dsv4Tokenizer, InvalidUtf8IsAnErrorNamingTheByteOffset) {
  const Tokenizer& t = get();
  for (const auto& [text, offset] : std::vector<std::pair<std::string, int>>{
           {"ab\xFF" "cd", 2}, {"ok \xC3", 3}, {"\xED\xA0\x80", 0}, {"\xC0\x80", 0}, {"caf\xC3\xA9 \xE4\xBD", 6}}) {
    try {
      t.encode(text, true);
      ADD_FAILURE() << "no error for offset " << offset;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("invalid UTF-8 at byte " + std::to_string(offset)), std::string::npos)
          << e.what();
    }
  }
}

TEST_F(Dsv4Tokenizer, DecodingAnUnknownIdIsAnError) {
  EXPECT_THROW(get().decode(std::vector<TokenId>{-1}), Error);
  EXPECT_THROW(get().decode(std::vector<TokenId>{TokenId(get().vocab_size())}), Error);
}

TEST(TokenizerLoading, UnsupportedPartsAreRefusedWithTheirName) {
  auto with = [](const std::string& key, const std::string& value) {
    auto file = nlohmann::json::parse(tiny_tokenizer_json(300));
    file[key] = nlohmann::json::parse(value);
    return file.dump();
  };
  auto error_of = [](const std::string& json) -> std::string {
    try {
      Tokenizer::from_json(json, "test.json");
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of(with("normalizer", R"({"type":"NFC"})")).find("NFC"), std::string::npos);
  EXPECT_NE(error_of(with("pre_tokenizer", R"({"type":"Whitespace"})")).find("Whitespace"), std::string::npos);
  EXPECT_NE(error_of(with("decoder", R"({"type":"WordPiece"})")).find("WordPiece"), std::string::npos);
  EXPECT_NE(error_of("{not json").find("test.json"), std::string::npos);
  EXPECT_NE(error_of(with("pre_tokenizer", R"({"type":"Split","pattern":{"Regex":"[a\\S]"},"behavior":"Isolated"})"))
                .find("negated shorthand"),
            std::string::npos);
  EXPECT_THROW(Tokenizer::from_file("/nonexistent/model"), Error);
}

}  // namespace
}  // namespace plumb::text
