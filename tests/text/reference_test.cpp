// The loader's features against the official HF tokenizers library: tests/text/data/reference holds
// variants of a small tokenizer.json (pre-tokenizer kinds, split behaviors, regex shorthands, added-token
// flags, HF's id rule, unk handling, merge formats, decoders) and, for each variant and text, the ids and
// decoded texts that npm tokenizers 0.23.2 produced (tools/node/tokenizer_reference.js writes them), plus
// id lists that cut or break UTF-8, whose lossy decoding (one U+FFFD per maximal ill-formed subpart) both
// decode() and the streaming detokenizer must reproduce.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

#include "text/stream_detokenizer.h"
#include "text/tokenizer.h"

namespace plumb::text {
namespace {

const std::filesystem::path kData = std::filesystem::path(PLUMB_SOURCE_DIR) / "tests/text/data/reference";

TEST(HfReference, EveryVariantEncodesAndDecodesLikeHfTokenizers) {
  std::ifstream in(kData / "reference.jsonl");
  ASSERT_TRUE(in) << kData;
  std::map<std::string, Tokenizer> tokenizers;
  auto load = [&](const std::string& name) -> const Tokenizer& {
    auto it = tokenizers.find(name);
    if (it == tokenizers.end())
      it = tokenizers.emplace(name, Tokenizer::from_file(kData / "variants" / (name + ".json"))).first;
    return it->second;
  };
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    const auto c = nlohmann::json::parse(line);
    const std::string variant = c["variant"];
    const auto ids = c["ids"].get<std::vector<TokenId>>();
    if (!c.contains("text")) {
      SCOPED_TRACE(variant + ": ids " + c["ids"].dump());
      const Tokenizer& tokenizer = load(variant);
      for (const bool skip : {false, true}) {
        const std::string want = c[skip ? "decoded_skip" : "decoded"];
        EXPECT_EQ(tokenizer.decode(ids, skip), want);
        StreamDetokenizer stream(tokenizer, skip);
        std::string streamed;
        for (const TokenId id : ids) streamed += stream.push(id);
        streamed += stream.finish();
        EXPECT_EQ(streamed, want);
      }
      ++cases;
      continue;
    }
    const std::string text = c["text"];
    SCOPED_TRACE(variant + ": " + nlohmann::json(text).dump());
    if (variant == "no_special") {
      // HF with the special tokens removed from the file is what allow_special=false means on the base file.
      EXPECT_EQ(load("base").encode(text, false), ids);
    } else {
      const Tokenizer& tokenizer = load(variant);
      EXPECT_EQ(tokenizer.encode(text, true), ids);
      EXPECT_EQ(tokenizer.decode(ids), c["decoded"].get<std::string>());
      EXPECT_EQ(tokenizer.decode(ids, true), c["decoded_skip"].get<std::string>());
    }
    ++cases;
  }
  EXPECT_GE(cases, 500);
}

}  // namespace
}  // namespace plumb::text
