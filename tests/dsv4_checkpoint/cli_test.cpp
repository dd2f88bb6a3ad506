// The plumb binary: `plumb info` on the release config, on a tiny checkpoint, on a damaged copy and with no folder
// (the built-in model, including two processes racing to create it); `plumb gen-tiny` determinism.
#include <gmock/gmock.h>

#include <regex>

#include "model/dsv4/tiny_checkpoint.h"
#include "test_support.h"
#include "tiny_helpers.h"

namespace plumb::test {
namespace {

using ::testing::HasSubstr;

const std::string kPlumb = PLUMB_BINARY;

// The exact byte count printed on the line that starts with `label`.
uint64_t bytes_on_line(const std::string& output, const std::string& label) {
  const std::regex re(label + "[^\\n]*?\\((\\d+) bytes\\)");
  std::smatch m;
  if (!std::regex_search(output, m, re)) {
    ADD_FAILURE() << "no line " << label << " in:\n" << output;
    return 0;
  }
  return std::stoull(m[1]);
}

TEST(PlumbInfo, ReleaseConfigOnly) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const auto r = run_command(kPlumb + " info " + (fixtures / "dsv4-flash" / "config.json").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NEAR(double(bytes_on_line(r.output, "weights:")), 160e9, 0.01 * 160e9);
  const double per_token = double(bytes_on_line(r.output, "read per decoded token"));
  EXPECT_GT(per_token, 11e9);
  EXPECT_LT(per_token, 13e9);
  EXPECT_THAT(r.output, HasSubstr("layers: 2 window-only, 21 CSA, 20 HCA"));
  EXPECT_THAT(r.output, HasSubstr("256 routed (top-6"));
  EXPECT_THAT(r.output, HasSubstr("config only"));
}

TEST(PlumbInfo, TinyCheckpointHasNoProblemsAndTheBrokenCopyHasThree) {
  ScratchDir scratch;
  const auto good = scratch.path() / "good", bad = scratch.path() / "bad";
  dsv4::write_tiny_checkpoint(good, dsv4::TinySpec{});
  copy_folder(good, bad);
  break_tiny_copy(bad);

  const auto ok = run_command(kPlumb + " info " + good.string());
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_THAT(ok.output, HasSubstr("problems: 0"));

  const auto broken = run_command(kPlumb + " info " + bad.string());
  EXPECT_EQ(broken.status, 1) << broken.output;
  EXPECT_THAT(broken.output, HasSubstr("problems: 3"));
  EXPECT_THAT(broken.output, HasSubstr(std::string("tensor ") + kDeletedTensor + ": missing"));
  EXPECT_THAT(broken.output,
              HasSubstr(std::string("tensor ") + kReshapedScale + " (" + kShard1 + "): shape [2, 2], expected [4, 1]"));
  EXPECT_THAT(broken.output, HasSubstr(std::string(kShard2) + ": tensor "));
}

TEST(PlumbInfo, UnreadableConfigIsAnErrorNotACrash) {
  ScratchDir scratch;
  write_text(scratch.path() / "config.json", R"({"hidden_size": 4096})");
  const auto r = run_command(kPlumb + " info " + scratch.path().string());
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.output, HasSubstr("error: " + (scratch.path() / "config.json").string() + ": missing field"));
}

TEST(PlumbInfo, BuiltInModelWrittenOnceEvenWhenTwoProcessesRace) {
  ScratchDir scratch;
  const auto cache = scratch.path() / "cache";
  const std::string env = "PLUMB_CACHE_DIR=" + cache.string() + " ";
  const auto r = run_command("(" + env + kPlumb + " info > " + (scratch.path() / "1.txt").string() +
                             " 2>&1; echo $? > " + (scratch.path() / "1.rc").string() + ") & (" + env + kPlumb +
                             " info > " + (scratch.path() / "2.txt").string() + " 2>&1; echo $? > " +
                             (scratch.path() / "2.rc").string() + ") & wait");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* n : {"1", "2"}) {
    EXPECT_EQ(read_text(scratch.path() / (std::string(n) + ".rc")), "0\n");
    const std::string out = read_text(scratch.path() / (std::string(n) + ".txt"));
    EXPECT_THAT(out, HasSubstr("(built-in tiny model)"));
    EXPECT_THAT(out, HasSubstr("problems: 0"));
  }
  std::vector<std::string> entries;
  for (const auto& e : std::filesystem::directory_iterator(cache)) entries.push_back(e.path().filename().string());
  ASSERT_EQ(entries.size(), 1u) << ::testing::PrintToString(entries);  // no leftover temporary folder
  EXPECT_THAT(entries[0], ::testing::StartsWith("tiny-dsv4-v"));
  // The built-in model is gen-tiny's default output.
  dsv4::write_tiny_checkpoint(scratch.path() / "ref", dsv4::TinySpec{});
  EXPECT_EQ(folder_digest(cache / entries[0]), folder_digest(scratch.path() / "ref"));
  // A second run finds it and writes nothing.
  const auto again = run_command(env + kPlumb + " info");
  EXPECT_EQ(again.status, 0);
  EXPECT_THAT(again.output, ::testing::Not(HasSubstr("writing the built-in tiny model")));
}

TEST(PlumbGenTiny, SameSeedSameBytes) {
  ScratchDir scratch;
  const auto a = scratch.path() / "a", b = scratch.path() / "b", c = scratch.path() / "c";
  ASSERT_EQ(run_command(kPlumb + " gen-tiny " + a.string() + " --seed 7").status, 0);
  ASSERT_EQ(run_command(kPlumb + " gen-tiny " + b.string() + " --seed 7").status, 0);
  ASSERT_EQ(run_command(kPlumb + " gen-tiny " + c.string() + " --seed 8").status, 0);
  EXPECT_EQ(folder_digest(a), folder_digest(b));
  EXPECT_NE(folder_digest(a), folder_digest(c));
  const auto again = run_command(kPlumb + " gen-tiny " + a.string());
  EXPECT_EQ(again.status, 1);
  EXPECT_THAT(again.output, HasSubstr("exists and is not an empty folder"));
  EXPECT_EQ(folder_digest(a), folder_digest(b));
}

}  // namespace
}  // namespace plumb::test
