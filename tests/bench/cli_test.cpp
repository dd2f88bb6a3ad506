// `plumb bench` as a user runs it: exit statuses and tables from the binary against the fake OpenAI server.
#include <gtest/gtest.h>

#include <fstream>

#include "fake_openai_server.h"
#include "run_plumb.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using std::chrono::milliseconds;

TEST(BenchCli, ConcurrentAloneExitsZeroOnAnExactServer) {
  FakeOpenaiServer server(FakeServerOptions{.token_interval = milliseconds(2)});
  ASSERT_GT(server.port(), 0);
  ScratchDir dir;
  const auto out = run_plumb({"bench", "concurrent", "--url", server.url(), "--levels", "1,2", "--tokens", "8",
                              "--reps", "1", "--temperatures", "0,1", "--alone"},
                             dir.path());
  EXPECT_EQ(out.status, 0) << out.text;
  EXPECT_NE(out.text.find("equal 2/2"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("unequal"), std::string::npos) << out.text;
}

TEST(BenchCli, ConcurrentAloneExitsNonZeroWhenOneReplyIsPerturbed) {
  FakeOpenaiServer server(FakeServerOptions{.token_interval = milliseconds(2), .perturb_one_concurrent_reply = true});
  ASSERT_GT(server.port(), 0);
  ScratchDir dir;
  const auto json_path = dir.path() / "c.json";
  const auto out = run_plumb({"bench", "concurrent", "--url", server.url(), "--levels", "2", "--tokens", "8", "--reps",
                              "1", "--temperatures", "0", "--alone", "--json", json_path.string()},
                             dir.path());
  EXPECT_EQ(out.status, 1) << out.text;
  EXPECT_NE(out.text.find("unequal 1/2"), std::string::npos) << out.text;
  std::ifstream in(json_path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["exit_status"], 1);
  EXPECT_EQ(j["cells"][0]["alone"]["unequal"], 1);
}

TEST(BenchCli, CacheRequireFlagsSetTheExitStatus) {
  FakeOpenaiServer server(FakeServerOptions{.token_interval = milliseconds(1)});
  ASSERT_GT(server.port(), 0);
  ScratchDir dir;
  const std::vector<std::string> args = {"bench", "cache", "--url", server.url(), "--prompt-tokens", "16,24", "--tokens", "2"};
  auto with = [&](const char* flag) {
    auto a = args;
    a.push_back(flag);
    return a;
  };
  const auto reuse = run_plumb(with("--require-reuse"), dir.path());
  EXPECT_EQ(reuse.status, 0) << reuse.text;
  const auto cold = run_plumb(with("--require-cold"), dir.path());
  EXPECT_EQ(cold.status, 1) << cold.text;
  EXPECT_NE(cold.text.find("--require-cold: 15 cached tokens"), std::string::npos) << cold.text;
}

TEST(BenchCli, BadArgumentsAreRefusedWithAReason) {
  ScratchDir dir;
  auto out = run_plumb({"bench", "concurrent", "--levels", "0"}, dir.path());
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.text.find("--levels: 0 is not a number of streams"), std::string::npos) << out.text;
  out = run_plumb({"bench", "cache", "--require-cold", "--require-reuse"}, dir.path());
  EXPECT_NE(out.status, 0);
  EXPECT_NE(out.text.find("excludes"), std::string::npos) << out.text;
  out = run_plumb({"bench", "ab", "--base", "true", "--new", "true", "--", "concurrent", "--url", "http://x:1"},
                  dir.path());
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.text.find("leave out --url"), std::string::npos) << out.text;
  out = run_plumb({"bench", "ab", "--base", "exit 3", "--new", "true", "--", "openai"}, dir.path());
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.text.find("exited before it was ready"), std::string::npos) << out.text;
}

}  // namespace
}  // namespace plumb::test
