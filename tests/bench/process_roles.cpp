// Not checks: this test binary in the roles of the processes `bench ab` starts, selected with --gtest_filter (or
// GTEST_FILTER) by the ab tests and skipped in a normal run.
//  - FakeServerProcess.Serve: the fake OpenAI server on $PLUMB_FAKE_SERVER_PORT until SIGTERM, with the pacing
//    loading time and model id of the PLUMB_FAKE_SERVER_* variables.
//  - FakeBenchProcess.Report: stands in for `plumb bench <tool> --url U --json F`: it asks the server at U for its
//    model id, "fake-speed-<N>", and writes a report whose metrics are N tok/s and 1000/N ms, so the ab tests can
//    check the noise rule on numbers that do not depend on the machine's load.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>

#include "base/env_switch.h"
#include "bench/openai_client.h"
#include "bench/report.h"
#include "bench/tool_options.h"
#include "fake_openai_server.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using std::chrono::milliseconds;

TEST(FakeServerProcess, Serve) {
  const int port = env_int("PLUMB_FAKE_SERVER_PORT", 0);
  if (port == 0) GTEST_SKIP() << "runs only as the server command of the bench ab tests";
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // before the server's threads exist, so they inherit it
  FakeServerOptions o;
  o.port = port;
  o.first_token_delay = milliseconds(env_int("PLUMB_FAKE_SERVER_FIRST_MS", 0));
  o.token_interval = milliseconds(env_int("PLUMB_FAKE_SERVER_TOKEN_MS", 0));
  o.loading = milliseconds(env_int("PLUMB_FAKE_SERVER_LOADING_MS", 0));
  if (const char* model = std::getenv("PLUMB_FAKE_SERVER_MODEL")) o.model_id = model;
  FakeOpenaiServer server(o);
  ASSERT_EQ(server.port(), port);
  int signal = 0;
  sigwait(&stop_signals, &signal);
}

std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
  return args;
}

TEST(FakeBenchProcess, Report) {
  const auto args = own_arguments();
  if (args.size() < 2 || args[1] != "bench") GTEST_SKIP() << "runs only as the bench of the bench ab tests";
  bench::ToolOptions tool;
  for (size_t i = 2; i + 1 < args.size(); ++i) {
    if (args[i] == "--url") tool.url = args[i + 1];
    if (args[i] == "--json") tool.json_path = args[i + 1];
  }
  const auto target = bench::resolve_target(tool);
  constexpr std::string_view prefix = "fake-speed-";
  ASSERT_EQ(target.model.rfind(prefix, 0), 0u) << target.model;
  const double speed = std::stod(target.model.substr(prefix.size()));

  bench::Report report;
  report.tool = "fake";
  report.settings = {{"args", std::vector<std::string>(args.begin() + 2, args.end())}};
  report.metrics = {{"cell", "tok_s", speed, true}, {"cell", "ttft_ms", 1000.0 / speed, false}};
  report.finish(stdout, tool.json_path);
}

}  // namespace
}  // namespace plumb::test
