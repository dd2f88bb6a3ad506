// The streaming detokenizer: only complete UTF-8 comes out, characters split across tokens are held back
// until complete, and the concatenation of all pieces equals decode() of all ids (which tests elsewhere tie
// to the HF reference).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>

#include "test_support.h"
#include "text/byte_level.h"
#include "text/stream_detokenizer.h"
#include "text/tiny_tokenizer.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

namespace plumb::text {
namespace {

const Tokenizer& tiny() {
  static const Tokenizer tokenizer = Tokenizer::from_json(tiny_tokenizer_json(512), "tiny");
  return tokenizer;
}

// The id of the token that is exactly one raw byte.
TokenId byte_token(uint8_t b) { return tiny().require_token_id(byte_level_utf8(b)); }

TEST(StreamDetokenizer, HoldsBackAPartialCharacterUntilItCompletes) {
  StreamDetokenizer stream(tiny());
  EXPECT_EQ(stream.push(byte_token('a')), "a");
  EXPECT_EQ(stream.push(byte_token(0xC3)), "");  // first byte of é
  EXPECT_EQ(stream.pending_bytes(), 1u);
  EXPECT_EQ(stream.push(byte_token(0xA9)), "é");
  // 🦀 = F0 9F A6 80, one byte per token.
  EXPECT_EQ(stream.push(byte_token(0xF0)), "");
  EXPECT_EQ(stream.push(byte_token(0x9F)), "");
  EXPECT_EQ(stream.push(byte_token(0xA6)), "");
  EXPECT_EQ(stream.pending_bytes(), 3u);
  EXPECT_EQ(stream.push(byte_token(0x80)), "🦀");
  EXPECT_EQ(stream.finish(), "");
}

TEST(StreamDetokenizer, BytesThatCannotFormACharacterBecomeReplacementChars) {
  StreamDetokenizer stream(tiny());
  EXPECT_EQ(stream.push(byte_token(0xFF)), "\uFFFD");
  EXPECT_EQ(stream.push(byte_token(0xC3)), "");
  EXPECT_EQ(stream.push(byte_token('x')), "\uFFFDx");  // é's lead byte followed by ASCII
  EXPECT_EQ(stream.push(byte_token(0xE4)), "");
  EXPECT_EQ(stream.push(byte_token(0xBD)), "");
  EXPECT_EQ(stream.finish(), "\uFFFD");  // truncated at the end of the stream
}

TEST(StreamDetokenizer, SkipsSpecialTokensWhenAsked) {
  const TokenId eos = tiny().require_token_id("<｜end▁of▁sentence｜>");
  StreamDetokenizer keep(tiny()), skip(tiny(), true);
  EXPECT_EQ(keep.push(eos), "<｜end▁of▁sentence｜>");
  EXPECT_EQ(skip.push(eos), "");
}

// Random id sequences (byte tokens, merged tokens, special tokens): every piece is valid UTF-8, at most 3
// bytes are ever held back, and the pieces add up to decode().
TEST(StreamDetokenizer, PiecesAddUpToDecodeOnRandomIds) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<TokenId> any_id(0, TokenId(tiny().vocab_size()) - 1);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<TokenId> ids(1 + trial % 40);
    for (auto& id : ids) id = any_id(rng);
    for (const bool skip : {false, true}) {
      StreamDetokenizer stream(tiny(), skip);
      std::string joined;
      for (const TokenId id : ids) {
        const std::string piece = stream.push(id);
        EXPECT_EQ(utf8_find_invalid(piece), std::string::npos);
        EXPECT_LE(stream.pending_bytes(), 3u);
        joined += piece;
      }
      joined += stream.finish();
      EXPECT_EQ(joined, tiny().decode(ids, skip));
    }
  }
}

// Every golden text of DeepSeek-V4's tokenizer, streamed one id at a time, comes back exactly.
TEST(StreamDetokenizer, Dsv4GoldenTextsStreamBackExactly) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const Tokenizer tokenizer = Tokenizer::from_file(fixtures / "tokenizer/dsv4");
  std::ifstream in(fixtures / "tokenizer/dsv4/golden.jsonl");
  std::string line;
  int held_back = 0;
  while (std::getline(in, line)) {
    const auto c = nlohmann::json::parse(line);
    StreamDetokenizer stream(tokenizer);
    std::string joined;
    for (const TokenId id : c["ids"].get<std::vector<TokenId>>()) {
      const std::string piece = stream.push(id);
      EXPECT_EQ(utf8_find_invalid(piece), std::string::npos);
      held_back += stream.pending_bytes() > 0;
      joined += piece;
    }
    joined += stream.finish();
    EXPECT_EQ(joined, c["text"].get<std::string>());
  }
  EXPECT_GT(held_back, 0) << "the golden texts should include characters split across tokens";
}

}  // namespace
}  // namespace plumb::text
