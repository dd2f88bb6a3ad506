// `plumb logits`: the binary file holds exactly the logits the model computes in-process, the JSON summary names
// each position's argmax, and bad input is an error exit, not a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "test_support.h"
#include "tiny_model.h"

namespace plumb::test {
namespace {

int run(const std::string& args) { return std::system((std::string(PLUMB_BINARY) + " logits " + args + " > /dev/null 2>&1").c_str()); }

std::vector<char> read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(LogitsCli, WritesTheModelsLogitsAndASummary) {
  ScratchDir dir;
  const auto model = open_tiny(kernels::Numerics::release, 1);
  const auto tokens = random_tokens(41, 21, model->info().vocab_size);
  std::string ids;
  for (int32_t t : tokens) {
    if (!ids.empty()) ids += ',';
    ids += std::to_string(t);  // appended, not "," + string: GCC 12 warns falsely (-Wrestrict) on that form
  }
  const auto bin = dir.path() / "l.bin", js = dir.path() / "l.json";
  ASSERT_EQ(run(tiny_checkpoint_dir().string() + " --ids " + ids + " --chunk 5 --out " + bin.string() + " --json " +
                js.string()),
            0);

  const auto want = run_chunks(*model, 0, tokens, 0, 21, {21});
  const std::vector<char> file = read(bin);
  ASSERT_EQ(file.size(), 32 + want.size() * sizeof(float));
  EXPECT_EQ(std::string(file.data(), 8), "PLUMBLGT");
  uint64_t rows = 0, vocab = 0;
  std::memcpy(&rows, file.data() + 16, 8);
  std::memcpy(&vocab, file.data() + 24, 8);
  EXPECT_EQ(rows, 21u);
  EXPECT_EQ(vocab, uint64_t(model->info().vocab_size));
  EXPECT_EQ(std::memcmp(file.data() + 32, want.data(), want.size() * sizeof(float)), 0);

  const auto summary = nlohmann::json::parse(read(js));
  ASSERT_EQ(summary["positions"].size(), 21u);
  for (int64_t p = 0; p < 21; ++p) {
    const float* row = want.data() + p * int64_t(vocab);
    EXPECT_EQ(summary["positions"][p]["argmax"].get<int64_t>(), std::max_element(row, row + vocab) - row);
  }

  EXPECT_NE(run(tiny_checkpoint_dir().string() + " --ids 1,99999"), 0);  // token outside the vocabulary
  EXPECT_NE(run(tiny_checkpoint_dir().string() + " --ids 1,x"), 0);
  EXPECT_NE(run((dir.path() / "missing").string() + " --ids 1"), 0);
}

}  // namespace
}  // namespace plumb::test
