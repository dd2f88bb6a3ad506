// Each bench tool against `plumb serve` on the built-in tiny model, as CI runs it: short settings, and every
// exactness column all equal (E1 alone vs concurrent, E2 drafts vs "draft": false, E3 cache hit vs cold, E5 reps).
// Then `bench ab` starting and stopping `plumb serve` itself five times: once with the stand-in bench of
// process_roles.cpp, which reads the speed from the served model name, so the verdict does not depend on load;
// once with the real `bench openai`, where every fresh server must give the same tokens.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "base/version.h"
#include "bench/child_process.h"
#include "bench/openai_client.h"
#include "run_plumb.h"
#include "test_support.h"

namespace plumb::test {
namespace {

// `plumb serve` on a free port, stopped (SIGTERM) when the object dies.
class PlumbServe {
 public:
  explicit PlumbServe(const std::filesystem::path& dir, const std::vector<std::string>& options = {})
      : port_(bench::free_port()), log_((dir / "serve.log").string()), process_(argv(port_, options), {}, log_) {}

  // True once GET /v1/models answers 200 (the model is loaded); false if the server exits or 300 s pass.
  bool wait_ready() {
    const bench::ServerUrl url{"127.0.0.1", port_, ""};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (std::chrono::steady_clock::now() < deadline && process_.running()) {
      if (bench::get_status(url, url.api("/models"), bench::ClientOptions{.timeout_s = 2, .api_key = ""}) == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }
  std::string log() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  int stop() { return process_.stop(30); }

 private:
  static std::vector<std::string> argv(int port, const std::vector<std::string>& options) {
    std::vector<std::string> out = {PLUMB_BINARY, "serve", "--port", std::to_string(port)};
    out.insert(out.end(), options.begin(), options.end());
    return out;
  }

  int port_;
  std::string log_;
  bench::ChildProcess process_;
};

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return in ? nlohmann::json::parse(in) : nlohmann::json();
}

TEST(BenchOnPlumbServe, EveryToolRunsAndEveryExactnessColumnIsEqual) {
  ScratchDir dir;
  PlumbServe server(dir.path());
  ASSERT_TRUE(server.wait_ready()) << server.log();

  const auto concurrent_json = dir.path() / "concurrent.json";
  auto out = run_plumb({"bench", "concurrent", "--url", server.url(), "--levels", "1,2", "--tokens", "8", "--reps", "1",
                        "--temperatures", "0,1", "--alone", "--serial", "--json", concurrent_json.string()},
                       dir.path());
  EXPECT_EQ(out.status, 0) << out.text;
  auto j = read_json(concurrent_json);
  EXPECT_EQ(j["commit"], std::string(plumb::git_commit()));
  EXPECT_TRUE(j["machine"].contains("hostname") && j["machine"].contains("cpu")) << j["machine"].dump();
  ASSERT_EQ(j["cells"].size(), 4u) << out.text;
  for (const auto& cell : j["cells"]) {
    const std::string all_equal = fmt::format("equal {0}/{0}", cell["level"].get<int>());
    EXPECT_EQ(cell["alone"]["text"], all_equal) << cell.dump();
    EXPECT_EQ(cell["serial"]["text"], all_equal) << cell.dump();
    EXPECT_EQ(cell["errors"], 0);
    EXPECT_EQ(cell["tokens_median"], 8.0);
  }
  // The two streams send different prompts and seeds: their hashes differ, so equal cells are not trivially equal.
  std::set<std::string> stream_hashes;
  for (const auto& rec : j["requests"])
    if (rec["role"] == "concurrent" && rec["level"] == 2 && rec["temperature"] == 1.0)
      stream_hashes.insert(rec["token_sha256"].get<std::string>());
  EXPECT_EQ(stream_hashes.size(), 2u) << out.text;

  const auto openai_json = dir.path() / "openai.json";
  out = run_plumb({"bench", "openai", "--url", server.url(), "--tokens", "8", "--reps", "2", "--json",
                   openai_json.string()},
                  dir.path());
  EXPECT_EQ(out.status, 0) << out.text;
  j = read_json(openai_json);
  ASSERT_EQ(j["cells"].size(), 2u) << out.text;
  for (const auto& cell : j["cells"]) {
    EXPECT_EQ(cell["reps_equal"]["text"], "equal 1/1") << cell.dump();
    EXPECT_EQ(cell["token_sha256"].get<std::string>().size(), 64u);
  }

  // 600 tokens: the engine keeps prompt states at multiples of 512 tokens, so a repeat resumes from 512.
  const auto cache_json = dir.path() / "cache.json";
  out = run_plumb({"bench", "cache", "--url", server.url(), "--prompt-tokens", "600", "--tokens", "4",
                   "--require-reuse", "--json", cache_json.string()},
                  dir.path());
  EXPECT_EQ(out.status, 0) << out.text;
  j = read_json(cache_json);
  ASSERT_EQ(j["cells"].size(), 4u) << out.text;
  EXPECT_EQ(j["cells"][0]["cached_tokens"], 0);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(j["cells"][i]["vs_first"], "equal") << j["cells"][i].dump();
    EXPECT_GT(j["cells"][i]["cached_tokens"].get<int>(), 0) << j["cells"][i].dump();
  }
  // The same prompt again: now even the first request is a cache hit, which --require-cold refuses.
  out = run_plumb({"bench", "cache", "--url", server.url(), "--prompt-tokens", "600", "--tokens", "4",
                   "--require-cold"},
                  dir.path());
  EXPECT_EQ(out.status, 1) << out.text;
  EXPECT_NE(out.text.find("request=first: --require-cold: 512 cached tokens"), std::string::npos) << out.text;
  EXPECT_EQ(server.stop(), 0) << server.log();
}

TEST(BenchOnPlumbServe, WithThePromptCacheOffRequireColdPasses) {
  ScratchDir dir;
  PlumbServe server(dir.path(), {"--prompt-cache-gib", "0"});
  ASSERT_TRUE(server.wait_ready()) << server.log();
  const auto cache_json = dir.path() / "cache.json";
  const auto out = run_plumb({"bench", "cache", "--url", server.url(), "--prompt-tokens", "48", "--tokens", "4",
                              "--require-cold", "--json", cache_json.string()},
                             dir.path());
  EXPECT_EQ(out.status, 0) << out.text;
  const auto j = read_json(cache_json);
  ASSERT_EQ(j["cells"].size(), 4u) << out.text;
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(j["cells"][i]["cached_tokens"], 0) << j["cells"][i].dump();
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(j["cells"][i]["vs_first"], "equal") << j["cells"][i].dump();
  EXPECT_EQ(server.stop(), 0) << server.log();
}

TEST(BenchOnPlumbServe, AbStartsAndStopsPlumbServeForEachRun) {
  ScratchDir dir;
  const std::string command = fmt::format("exec {} serve --port {{port}} --served-model-name fake-speed-100", PLUMB_BINARY);
  const auto json_path = dir.path() / "ab.json";
  const auto out = run_plumb({"bench", "ab", "--base", command, "--new", command, "--plumb", this_test_binary(),
                              "--json", json_path.string(), "--log-dir", (dir.path() / "logs").string(), "--", "openai"},
                             dir.path(), {"GTEST_FILTER=FakeBenchProcess.Report"});
  ASSERT_EQ(out.status, 0) << out.text;
  const auto j = read_json(json_path);
  ASSERT_EQ(j["runs"].size(), 5u);
  for (const auto& run : j["runs"]) EXPECT_EQ(run["server_exit_status"], 0) << run.dump();  // stopped by SIGTERM, cleanly
  for (const auto& cell : j["cells"]) EXPECT_EQ(cell["verdict"], "within noise");
}

// The real `bench openai` under ab, the same plumb serve command on both arms. Its timings are real, so its
// verdicts are not asserted: on a loaded machine the four measured runs fall in any order, and the rule rightly
// says faster or slower when both runs of one arm happen to land past both of the other (the verdict on identical
// commands is asserted above, on numbers that do not depend on load). What must hold whatever the load: every run
// succeeds, and five fresh servers give each prompt the same tokens.
TEST(BenchOnPlumbServe, AbWithTheRealOpenaiBenchGetsTheSameTokensFromEveryFreshServer) {
  ScratchDir dir;
  const std::string command = fmt::format("exec {} serve --port {{port}}", PLUMB_BINARY);
  const auto json_path = dir.path() / "ab.json";
  const auto out = run_plumb({"bench", "ab", "--base", command, "--new", command, "--json", json_path.string(),
                              "--log-dir", (dir.path() / "logs").string(), "--", "openai", "--tokens", "8", "--reps", "2"},
                             dir.path());
  ASSERT_EQ(out.status, 0) << out.text;
  const auto j = read_json(json_path);
  ASSERT_EQ(j["runs"].size(), 5u);
  std::map<std::string, std::set<std::string>> hashes_by_prompt;
  for (const auto& run : j["runs"]) {
    EXPECT_EQ(run["bench_exit_status"], 0) << run.dump();
    EXPECT_EQ(run["server_exit_status"], 0) << run.dump();
    ASSERT_EQ(run["report"]["cells"].size(), 2u) << run.dump();
    for (const auto& cell : run["report"]["cells"]) {
      EXPECT_EQ(cell["reps_equal"]["text"], "equal 1/1") << cell.dump();
      hashes_by_prompt[cell["cell"].get<std::string>()].insert(cell["token_sha256"].get<std::string>());
    }
  }
  ASSERT_EQ(hashes_by_prompt.size(), 2u);
  for (const auto& [prompt, hashes] : hashes_by_prompt) EXPECT_EQ(hashes.size(), 1u) << prompt;
  EXPECT_NE(hashes_by_prompt["code"], hashes_by_prompt["chat"]);
  // ttft and decode rate of each prompt, each with its four ratios and a verdict of the rule.
  ASSERT_EQ(j["cells"].size(), 4u) << out.text;
  for (const auto& cell : j["cells"]) EXPECT_EQ(cell["ratios_new_over_base"].size(), 4u) << cell.dump();
}

}  // namespace
}  // namespace plumb::test
