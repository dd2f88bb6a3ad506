// The tiny tokenizer generator: exact size, specials at the end of the id range, determinism, size limits.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

#include "base/error.h"
#include "text/byte_level.h"
#include "text/tiny_tokenizer.h"

namespace plumb::text {
namespace {

TEST(TinyTokenizer, FileHasExactlyVocabSizeIdsWithSpecialsAtTheEnd) {
  for (int vocab_size : {300, 512, 1024, 2048}) {
    const auto file = nlohmann::json::parse(tiny_tokenizer_json(vocab_size));
    const auto& vocab = file["model"]["vocab"];
    const auto& added = file["added_tokens"];
    const auto& specials = tiny_tokenizer_special_tokens();
    ASSERT_EQ(added.size(), specials.size());
    EXPECT_EQ(int(vocab.size() + added.size()), vocab_size);
    std::set<int> ids;
    for (const auto& [token, id] : vocab.items()) ids.insert(id.get<int>());
    for (size_t i = 0; i < added.size(); ++i) {
      EXPECT_EQ(added[i]["content"].get<std::string>(), specials[i]);
      EXPECT_EQ(added[i]["id"].get<int>(), vocab_size - int(specials.size()) + int(i));
      ids.insert(added[i]["id"].get<int>());
    }
    // Ids are exactly 0 .. vocab_size-1, each once.
    ASSERT_EQ(int(ids.size()), vocab_size);
    EXPECT_EQ(*ids.begin(), 0);
    EXPECT_EQ(*ids.rbegin(), vocab_size - 1);
    // The first 256 ids are the byte alphabet in byte order.
    for (int b = 0; b < 256; ++b) EXPECT_EQ(vocab[byte_level_utf8(uint8_t(b))].get<int>(), b);
  }
}

TEST(TinyTokenizer, SpecialStringsAreDeepSeekV4s) {
  const auto& s = tiny_tokenizer_special_tokens();
  const std::set<std::string_view> have(s.begin(), s.end());
  for (std::string_view want : {"<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>",
                                "<think>", "</think>", "｜DSML｜", "<｜latest_reminder｜>"}) {
    EXPECT_TRUE(have.count(want)) << want;
  }
}

TEST(TinyTokenizer, Deterministic) {
  EXPECT_EQ(tiny_tokenizer_json(777), tiny_tokenizer_json(777));
  EXPECT_NE(tiny_tokenizer_json(777), tiny_tokenizer_json(778));
}

TEST(TinyTokenizer, RejectsSizesOutsideTheSupportedRange) {
  EXPECT_THROW(tiny_tokenizer_json(tiny_tokenizer_min_vocab_size() - 1), Error);
  EXPECT_NO_THROW(tiny_tokenizer_json(tiny_tokenizer_min_vocab_size()));
  EXPECT_GE(tiny_tokenizer_max_vocab_size(), 2048);
  EXPECT_THROW(tiny_tokenizer_json(tiny_tokenizer_max_vocab_size() + 1), Error);
}

TEST(TinyTokenizer, ConfigNamesBosAndEos) {
  const auto config = nlohmann::json::parse(tiny_tokenizer_config_json());
  EXPECT_EQ(config["bos_token"]["content"], "<｜begin▁of▁sentence｜>");
  EXPECT_EQ(config["eos_token"]["content"], "<｜end▁of▁sentence｜>");
  EXPECT_EQ(config["add_bos_token"], false);
}

}  // namespace
}  // namespace plumb::text
