// 1 MB inputs through DeepSeek-V4's tokenizer, against the official HF tokenizers library: the id count and
// token_sha256 of each were printed by tools/node/tokenizer_large_reference.js (npm tokenizers 0.23.2),
// whose generators these mirror. Also decode(encode(text)) == text on each.
#include <gtest/gtest.h>

#include <chrono>

#include "base/sha256.h"
#include "test_support.h"
#include "text/tokenizer.h"

namespace plumb::text {
namespace {

constexpr size_t kMB = 1 << 20;

// `unit` repeated until the text has at least `bytes` bytes.
std::string repeat_to(std::string_view unit, size_t bytes) {
  std::string out;
  const size_t count = (bytes + unit.size() - 1) / unit.size();
  out.reserve(count * unit.size());
  for (size_t i = 0; i < count; ++i) out += unit;
  return out;
}

struct LargeCase {
  const char* name;
  std::string unit;
  size_t bytes;
  size_t ids;
  const char* sha256;
};

TEST(Dsv4Large, MegabyteInputsEqualHfTokenizers) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const Tokenizer tokenizer = Tokenizer::from_file(fixtures / "tokenizer/dsv4");
  const std::vector<LargeCase> cases = {
      {"letters", "a", 1048576, 131072, "461076d3b7edfa59d19d51be0f657265c3371aa6c8a270e3f16f6b47295cb05e"},
      {"spaces", " ", 1048576, 8192, "6dc6b2cf481178285dc3e3f47806732739c6c4427666013e084b69285971bada"},
      {"newlines", "  \n", 1048578, 174763, "159199bba000077049561278c1604a1c2aaf2e856119e1ce7fbde388c1797f5c"},
      {"digits", "0123456789", 1048580, 349527, "932cf7f339c8514a1c1b796384e575d1f45e0063c0d65bb6f5162b38b35320b8"},
      {"cjk", "深度求索", 1048584, 262146, "7f40a4d6c0431b0d1414e996905703119893e67862b3bbcecbc0a2cd5a908161"},
      {"mixed", "The quick brown fox, 42 times! def f(x): return x*2\n深度求索公司。こんにちは 🦀 café\t", 1048600,
       346038, "4bb81163dff9cd5ea0d38716c599a1b0b4f78457b1025547da5e36fed21d24c4"},
      {"specials", "<｜User｜>x<｜Assistant｜><think>y</think>z<｜end▁of▁sentence｜>", 1048580, 113360,
       "930f479a52c16ca55e044b61ea0ae79adf9fe7cba9a6b2cf9236bb9f8766fb1a"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string text = repeat_to(c.unit, kMB);
    ASSERT_EQ(text.size(), c.bytes);
    const auto start = std::chrono::steady_clock::now();
    const auto ids = tokenizer.encode(text, true);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(ids.size(), c.ids);
    EXPECT_EQ(token_sha256(ids), c.sha256);
    EXPECT_EQ(tokenizer.decode(ids), text);
    EXPECT_LT(seconds, 10.0) << "encoding 1 MB should take well under a second";
  }
}

}  // namespace
}  // namespace plumb::text
