// Each tool against the fake OpenAI server (fake_openai_server.h), in process: exactness columns all equal when
// the server is exact; an unequal, failed or unmet cell when it is made not to be, with a non-zero exit status.
#include <gtest/gtest.h>

#include <fstream>

#include "base/error.h"
#include "base/sha256.h"
#include "base/version.h"
#include "bench/cache_bench.h"
#include "bench/concurrent_bench.h"
#include "bench/openai_bench.h"
#include "bench/prompts.h"
#include "fake_openai_server.h"
#include "test_support.h"

namespace plumb::bench {
namespace {

using plumb::test::FakeOpenaiServer;
using plumb::test::FakeServerOptions;
using std::chrono::milliseconds;

// Paced so that concurrent streams overlap for certain.
FakeServerOptions paced(FakeServerOptions o = {}) {
  o.token_interval = milliseconds(2);
  return o;
}

ConcurrentOptions concurrent_options(const FakeOpenaiServer& server) {
  ConcurrentOptions o;
  o.tool.url = server.url();
  o.levels = {1, 3};
  o.tokens = 8;
  o.reps = 2;
  o.temperatures = {0, 1};
  o.alone = true;
  o.serial = true;
  return o;
}

std::string cell_column(const Report& r, size_t row, const std::string& column) {
  const auto& h = r.table.header;
  const size_t col = size_t(std::find(h.begin(), h.end(), column) - h.begin());
  return r.table.rows.at(row).at(col);
}

TEST(BenchConcurrent, ExactServerGivesAllEqualCells) {
  FakeOpenaiServer server(paced());
  ASSERT_GT(server.port(), 0);
  const auto o = concurrent_options(server);
  const Report r = run_concurrent(o);
  ASSERT_EQ(r.table.rows.size(), 4u);  // 2 temperatures x 2 levels
  const std::vector<std::string> levels = {"1", "3", "1", "3"};
  const std::vector<std::string> alone = {"equal 2/2", "equal 6/6", "equal 2/2", "equal 6/6"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(cell_column(r, i, "level"), levels[i]);
    EXPECT_EQ(cell_column(r, i, "alone"), alone[i]);
    EXPECT_EQ(cell_column(r, i, "serial"), alone[i]);
    EXPECT_EQ(cell_column(r, i, "errors"), "0");
    EXPECT_EQ(cell_column(r, i, "tokens"), "8");
  }
  EXPECT_EQ(r.exit_status(), 0) << testing::PrintToString(r.problems);

  // Every request is recorded with the hash of the tokens the server sent, computed here from the fake's rule.
  // 2 temperatures x (3 alone + 3 serial references + (1 + 3) streams x 2 reps) = 28.
  ASSERT_EQ(r.requests.size(), 28u);
  for (const auto& rec : r.requests) {
    const int stream = rec["stream"].get<int>();
    const double temperature = rec["temperature"].get<double>();
    const auto ids = FakeOpenaiServer::tokens_for(FakeOpenaiServer::text_prompt(stream_prompt(size_t(stream))),
                                                  o.tool.seed + uint64_t(stream), temperature, 8);
    EXPECT_EQ(rec["token_sha256"], token_sha256(ids));
  }
  // Two streams at temperature 1 differ (different prompts and seeds), so equal cells are not trivially equal.
  EXPECT_NE(r.requests[0]["token_sha256"], r.requests[1]["token_sha256"]);
}

TEST(BenchConcurrent, OnePerturbedConcurrentReplyIsUnequalAndFailsTheRun) {
  FakeServerOptions fo = paced();
  fo.perturb_one_concurrent_reply = true;
  FakeOpenaiServer server(fo);
  ASSERT_GT(server.port(), 0);
  auto o = concurrent_options(server);
  o.temperatures = {0};
  o.serial = false;
  const Report r = run_concurrent(o);
  EXPECT_TRUE(server.perturbed_a_reply());
  ASSERT_EQ(r.table.rows.size(), 2u);
  EXPECT_EQ(cell_column(r, 0, "alone"), "equal 2/2");
  EXPECT_EQ(cell_column(r, 1, "alone"), "unequal 1/6");
  EXPECT_EQ(cell_column(r, 1, "serial"), "-");
  EXPECT_EQ(r.exit_status(), 1);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0], "level 3 temperature 0: --alone unequal 1/6");
}

TEST(BenchConcurrent, MissingHashesAreFailuresNotPasses) {
  FakeServerOptions fo = paced();
  fo.send_token_sha256 = false;
  FakeOpenaiServer server(fo);
  ASSERT_GT(server.port(), 0);
  auto o = concurrent_options(server);
  o.levels = {2};
  o.temperatures = {0};
  o.reps = 1;
  o.serial = false;
  const Report r = run_concurrent(o);
  EXPECT_EQ(cell_column(r, 0, "alone"), "failed 2/2");
  EXPECT_EQ(r.exit_status(), 1);
}

TEST(BenchConcurrent, AnUnreachableServerIsAClearError) {
  ConcurrentOptions o;
  o.tool.url = "http://127.0.0.1:1";
  try {
    run_concurrent(o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reach the server"), std::string::npos) << e.what();
  }
}

TEST(BenchOpenai, TwoPromptsRepsEqualAndJsonRecorded) {
  FakeOpenaiServer server(paced());
  ASSERT_GT(server.port(), 0);
  plumb::test::ScratchDir dir;
  OpenaiOptions o;
  o.tool.url = server.url();
  o.tool.json_path = (dir.path() / "openai.json").string();
  o.tokens = 6;
  o.reps = 3;
  const Report r = run_openai(o);
  ASSERT_EQ(r.table.rows.size(), 2u);
  EXPECT_EQ(cell_column(r, 0, "prompt"), "code");
  EXPECT_EQ(cell_column(r, 1, "prompt"), "chat");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(cell_column(r, i, "reps"), "equal 2/2");
    EXPECT_EQ(cell_column(r, i, "tokens"), "6");
  }
  const auto code_ids = FakeOpenaiServer::tokens_for(FakeOpenaiServer::text_prompt(code_prompt().text), 1, 0, 6);
  EXPECT_EQ(cell_column(r, 0, "token_sha256"), token_sha256(code_ids).substr(0, 16));
  EXPECT_EQ(r.finish(stdout, o.tool.json_path), 0);

  std::ifstream in(o.tool.json_path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["tool"], "openai");
  EXPECT_EQ(j["commit"], std::string(plumb::git_commit()));
  EXPECT_TRUE(j["machine"].contains("hostname"));
  EXPECT_TRUE(j["machine"].contains("cpu"));
  EXPECT_TRUE(j["machine"].contains("gpu"));
  EXPECT_EQ(j["requests"].size(), 6u);
  EXPECT_EQ(j["requests"][0]["token_sha256"], token_sha256(code_ids));
  EXPECT_EQ(j["exit_status"], 0);
  // ttft and decode for each prompt, as bench ab compares them.
  EXPECT_EQ(j["metrics"].size(), 4u);
}

CacheOptions cache_options(const FakeOpenaiServer& server, CacheRequirement require) {
  CacheOptions o;
  o.tool.url = server.url();
  o.prompt_tokens = {32, 64};
  o.tokens = 4;
  o.require = require;
  return o;
}

TEST(BenchCache, ReuseIsReportedAndRequired) {
  FakeOpenaiServer server(paced());
  ASSERT_GT(server.port(), 0);
  const Report r = run_cache(cache_options(server, CacheRequirement::reuse));
  ASSERT_EQ(r.table.rows.size(), 8u);  // 2 lengths x (first, repeat, pair a, pair b)
  // The fake reuses all but the last prompt token of a prompt it has seen.
  const std::vector<std::string> cached = {"0", "31", "31", "31", "0", "63", "63", "63"};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(cell_column(r, i, "cached"), cached[i]) << i;
    EXPECT_EQ(cell_column(r, i, "vs first"), i % 4 == 0 ? "-" : "equal") << i;
  }
  EXPECT_EQ(cell_column(r, 0, "usage prompt"), "32");
  EXPECT_EQ(r.exit_status(), 0) << testing::PrintToString(r.problems);
}

TEST(BenchCache, RequireColdFailsOnAServerThatReuses) {
  FakeOpenaiServer server(paced());
  ASSERT_GT(server.port(), 0);
  const Report r = run_cache(cache_options(server, CacheRequirement::cold));
  EXPECT_EQ(r.exit_status(), 1);
  ASSERT_EQ(r.problems.size(), 6u);  // repeat and pair, two lengths
  EXPECT_EQ(r.problems[0], "prompt_tokens=32 request=repeat: --require-cold: 31 cached tokens");
}

TEST(BenchCache, WithoutACacheColdPassesAndReuseFails) {
  FakeServerOptions fo = paced();
  fo.prompt_cache = false;
  FakeOpenaiServer server(fo);
  ASSERT_GT(server.port(), 0);
  EXPECT_EQ(run_cache(cache_options(server, CacheRequirement::cold)).exit_status(), 0);
  const Report r = run_cache(cache_options(server, CacheRequirement::reuse));
  EXPECT_EQ(r.exit_status(), 1);
  ASSERT_EQ(r.problems.size(), 6u);
  EXPECT_EQ(r.problems[0], "prompt_tokens=32 request=repeat: --require-reuse: 0 cached tokens");
}

}  // namespace
}  // namespace plumb::bench
