// `plumb bench ab` end to end: it starts each arm's server command fresh (this binary as FakeServerProcess.Serve),
// runs a bench against it, stops it, and applies the noise rule to the four measured runs. The rule is checked on
// numbers that do not depend on the machine's load (FakeBenchProcess.Report reports the speed the server's model
// id names), and once on real timings with a difference far beyond any noise.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "run_plumb.h"
#include "test_support.h"

namespace plumb::test {
namespace {

std::string fake_server(const std::string& env, const char* port_ref) {
  return fmt::format("{} PLUMB_FAKE_SERVER_PORT={} exec {} --gtest_filter=FakeServerProcess.Serve", env, port_ref,
                     this_test_binary());
}

std::string server_of_speed(double speed) {
  return fake_server(fmt::format("PLUMB_FAKE_SERVER_MODEL=fake-speed-{}", speed), "{port}");
}

struct AbResult {
  PlumbOutput out;
  nlohmann::json report;
};

AbResult run_ab(const std::string& base, const std::string& fresh, const std::vector<std::string>& bench,
                const std::filesystem::path& dir, bool fake_bench) {
  const auto json_path = dir / "ab.json";
  std::vector<std::string> args = {"bench", "ab", "--base", base, "--new", fresh, "--json", json_path.string(),
                                   "--log-dir", (dir / "logs").string()};
  std::vector<std::string> env;
  if (fake_bench) {
    args.insert(args.end(), {"--plumb", this_test_binary()});
    env.push_back("GTEST_FILTER=FakeBenchProcess.Report");
  }
  args.push_back("--");
  args.insert(args.end(), bench.begin(), bench.end());
  AbResult r;
  r.out = run_plumb(args, dir, env);
  std::ifstream in(json_path);
  if (in) r.report = nlohmann::json::parse(in);
  return r;
}

const nlohmann::json& cell(const AbResult& r, const std::string& metric) {
  for (const auto& c : r.report["cells"])
    if (c["metric"] == metric) return c;
  static const nlohmann::json none;
  return none;
}

TEST(BenchAb, TheSameCommandOnBothSidesIsWithinNoiseAndTheWarmUpIsDiscarded) {
  ScratchDir dir;
  // The first server started (the warm-up) reports speed 1, every later one 100: counting the warm-up would make
  // base 1 far slower than the new runs. Each server "loads" for 300 ms, live on /health but 503 on /v1/models:
  // a bench started before the model is served would fail.
  const std::string command = fake_server(
      fmt::format("n=$(cat {0}/starts 2>/dev/null || echo 0); echo $((n + 1)) > {0}/starts; "
                  "if [ \"$n\" = 0 ]; then s=1; else s=100; fi; PLUMB_FAKE_SERVER_MODEL=fake-speed-$s "
                  "PLUMB_FAKE_SERVER_LOADING_MS=300",
                  dir.path().string()),
      "{port}");
  const auto r = run_ab(command, command, {"openai", "--tokens", "4"}, dir.path(), true);
  ASSERT_EQ(r.out.status, 0) << r.out.text;
  const auto& runs = r.report["runs"];
  ASSERT_EQ(runs.size(), 5u) << r.out.text;
  const std::vector<std::string> arms = {"base", "base", "new", "new", "base"};
  std::set<int> ports;
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(runs[i]["arm"], arms[i]);
    EXPECT_EQ(runs[i]["measured"], i > 0);
    EXPECT_EQ(runs[i]["report"]["settings"]["args"][0], "openai");
    EXPECT_EQ(runs[i]["report"]["metrics"][0]["value"], i == 0 ? 1.0 : 100.0);
    ports.insert(runs[i]["port"].get<int>());
  }
  EXPECT_EQ(ports.size(), 5u);  // a fresh server each run
  std::ifstream starts(dir.path() / "starts");
  int started = 0;
  starts >> started;
  EXPECT_EQ(started, 5);

  for (const char* metric : {"tok_s", "ttft_ms"}) {
    const auto& c = cell(r, metric);
    EXPECT_EQ(c["verdict"], "within noise") << r.out.text;
    EXPECT_EQ(c["ratios_new_over_base"], nlohmann::json({1.0, 1.0, 1.0, 1.0}));
  }
  EXPECT_NE(r.out.text.find("within noise"), std::string::npos) << r.out.text;
}

TEST(BenchAb, VerdictsFollowTheOnePercentRule) {
  const std::vector<std::pair<double, const char*>> cases = {{50, "slower"}, {100.5, "within noise"}, {102, "faster"}};
  for (const auto& [speed, verdict] : cases) {
    ScratchDir dir;
    const auto r = run_ab(server_of_speed(100), server_of_speed(speed), {"openai"}, dir.path(), true);
    ASSERT_EQ(r.out.status, 0) << r.out.text;
    EXPECT_EQ(cell(r, "tok_s")["verdict"], verdict) << speed;
    EXPECT_EQ(cell(r, "ttft_ms")["verdict"], verdict) << speed;
    EXPECT_DOUBLE_EQ(cell(r, "tok_s")["ratios_new_over_base"][0].get<double>(), speed / 100);
  }
}

TEST(BenchAb, AFailedRunFailsTheComparison) {
  ScratchDir dir;
  // A server that is up but whose bench fails (the fake bench refuses a model id without a speed).
  const std::string no_speed = fake_server("PLUMB_FAKE_SERVER_MODEL=fake-model", "{port}");
  const auto r = run_ab(server_of_speed(100), no_speed, {"openai"}, dir.path(), true);
  EXPECT_EQ(r.out.status, 1) << r.out.text;
  EXPECT_NE(r.out.text.find("run 'new 1': the bench exited with status 1"), std::string::npos) << r.out.text;
}

// Real timings from `plumb bench concurrent`: a server whose tokens come at half the pace, with twice the delay
// to the first, is slower on both metrics whatever the machine's load.
TEST(BenchAb, ATwiceAsSlowServerIsSlowerOnRealTimings) {
  ScratchDir dir;
  const std::string base = fake_server("PLUMB_FAKE_SERVER_FIRST_MS=100 PLUMB_FAKE_SERVER_TOKEN_MS=10", "{port}");
  // The new arm takes its port from $PORT rather than {port}.
  const std::string slow = fake_server("PLUMB_FAKE_SERVER_FIRST_MS=200 PLUMB_FAKE_SERVER_TOKEN_MS=20", "$PORT");
  const auto r = run_ab(base, slow,
                        {"concurrent", "--levels", "1", "--tokens", "16", "--reps", "1", "--temperatures", "0", "--alone"},
                        dir.path(), false);
  ASSERT_EQ(r.out.status, 0) << r.out.text;
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(r.report["runs"][i]["report"]["cells"][0]["alone"]["text"], "equal 1/1");
  EXPECT_EQ(cell(r, "aggregate_tok_s")["verdict"], "slower") << r.out.text;
  EXPECT_EQ(cell(r, "ttft_ms")["verdict"], "slower") << r.out.text;
}

}  // namespace
}  // namespace plumb::test
