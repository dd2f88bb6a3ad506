// `plumb tokenize` end to end on a tiny checkpoint folder: ids and pieces out, --ids decodes, bad input
// exits non-zero with the reason.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "test_support.h"
#include "text/tiny_tokenizer.h"
#include "text/tokenizer.h"

namespace plumb::text {
namespace {

test::CommandResult run(const std::string& args) {
  return test::run_command(std::string(PLUMB_BINARY) + " tokenize " + args);
}

TEST(TokenizeCli, EncodesDecodesAndReportsErrors) {
  test::ScratchDir dir;
  std::ofstream(dir.path() / "tokenizer.json") << tiny_tokenizer_json(512);
  const Tokenizer tokenizer = Tokenizer::from_file(dir.path());
  const std::string model = dir.path().string();

  const std::string text = "<｜User｜>Hello world";
  const auto ids = tokenizer.encode(text, true);
  std::string list = "[", csv;
  for (size_t i = 0; i < ids.size(); ++i) {
    list += i ? ", " : "";
    list += std::to_string(ids[i]);
    csv += i ? "," : "";
    csv += std::to_string(ids[i]);
  }
  list += "]";
  auto r = run(model + " '<｜User｜>Hello world'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(std::to_string(ids.size()) + " tokens\n" + list), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"<｜User｜>\"  (added)"), std::string::npos) << r.output;

  r = run(model + " --ids " + csv);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("decoded (" + std::to_string(text.size()) + " bytes): \"" + text + "\""), std::string::npos)
      << r.output;

  r = run(model + " --ids 1,banana");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("\"banana\" is not a token id"), std::string::npos) << r.output;
  r = run(model + " --ids 99999");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("token id 99999 is not in the vocabulary"), std::string::npos) << r.output;
  std::ofstream(dir.path() / "bad.txt", std::ios::binary) << "bad \xff byte";
  r = run(model + " - < " + (dir.path() / "bad.txt").string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("invalid UTF-8 at byte 4"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace plumb::text
