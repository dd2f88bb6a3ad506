// `plumb bench concurrent|openai|cache|ab`: benchmark tools that talk HTTP to any OpenAI-compatible server
// (src/bench). Each prints a table, writes the same results as JSON with --json, and exits non-zero when a
// request failed, an exactness check was unequal or failed, or a --require-* flag was not met.
#include <cstdio>
#include <memory>

#include "bench/ab_bench.h"
#include "bench/cache_bench.h"
#include "bench/concurrent_bench.h"
#include "bench/openai_bench.h"
#include "cli/command.h"

namespace {

using namespace plumb::bench;

void add_tool_options(CLI::App& app, ToolOptions& o) {
  app.add_option("--url", o.url, "the server, http://host:port (a trailing /v1 is fine)")->capture_default_str();
  app.add_option("--model", o.model, "model name to send (default: the first one GET /v1/models lists)");
  app.add_option("--json", o.json_path, "also write the results as JSON to this file");
  app.add_option("--timeout", o.timeout_s, "seconds a request may wait to connect or for its next bytes")
      ->capture_default_str();
  app.add_option("--api-key", o.api_key, "bearer token to send")->envname("OPENAI_API_KEY");
  app.add_option("--seed", o.seed, "seed of the requests (stream i of a concurrent cell uses seed + i)")
      ->capture_default_str();
}

struct BenchCli {
  ConcurrentOptions concurrent;
  OpenaiOptions openai;
  CacheOptions cache;
  bool require_cold = false, require_reuse = false;
  std::vector<int32_t> token_ids = {100, 900};
  AbOptions ab;
  std::string ab_json;
  CLI::App *concurrent_app = nullptr, *openai_app = nullptr, *cache_app = nullptr, *ab_app = nullptr;
};

void add_concurrent(CLI::App& bench, BenchCli& cli) {
  auto* app = cli.concurrent_app = bench.add_subcommand(
      "concurrent", "streams that start together: aggregate tok/s per level and temperature, exactness by token hash");
  auto& o = cli.concurrent;
  add_tool_options(*app, o.tool);
  app->add_option("--levels", o.levels, "numbers of concurrent streams")->delimiter(',')->capture_default_str();
  app->add_option("--tokens", o.tokens, "tokens each stream generates")->capture_default_str();
  app->add_option("--reps", o.reps, "repetitions of each cell")->capture_default_str();
  app->add_option("--temperatures", o.temperatures, "sampling temperatures")->delimiter(',')->capture_default_str();
  app->add_flag("--alone", o.alone, "check each reply against the same request run alone");
  app->add_flag("--serial", o.serial, "check each reply against the same request with \"draft\": false");
}

void add_openai(CLI::App& bench, BenchCli& cli) {
  auto* app = cli.openai_app =
      bench.add_subcommand("openai", "a code prompt and a chat prompt: TTFT and decode tok/s (medians), token hashes");
  auto& o = cli.openai;
  add_tool_options(*app, o.tool);
  app->add_option("--tokens", o.tokens, "tokens each request generates")->capture_default_str();
  app->add_option("--reps", o.reps, "repetitions of each prompt")->capture_default_str();
}

void add_cache(CLI::App& bench, BenchCli& cli) {
  auto* app = cli.cache_app = bench.add_subcommand(
      "cache", "prompt cache: first request, repeat and a concurrent pair per prompt length; cached_tokens and TTFT");
  auto& o = cli.cache;
  add_tool_options(*app, o.tool);
  app->add_option("--prompt-tokens", o.prompt_tokens, "prompt lengths in tokens")->delimiter(',')->capture_default_str();
  app->add_option("--tokens", o.tokens, "tokens each request generates")->capture_default_str();
  app->add_option("--token-ids", cli.token_ids, "LO,HI: prompt token ids are drawn from [LO, HI)")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  auto* cold = app->add_flag("--require-cold", cli.require_cold, "exit non-zero unless every request reports 0 cached tokens");
  auto* reuse = app->add_flag("--require-reuse", cli.require_reuse,
                              "exit non-zero unless the repeat and the pair report cached tokens");
  cold->excludes(reuse);
}

void add_ab(CLI::App& bench, BenchCli& cli) {
  auto* app = cli.ab_app = bench.add_subcommand(
      "ab", "compare two server commands: warm-up, base, new, new, base; faster/slower only past 1% both ways");
  auto& o = cli.ab;
  app->add_option("--base", o.base_command,
                  "server command of the base arm, run by /bin/sh; {port} in it (and $PORT) is its port")
      ->required();
  app->add_option("--new", o.new_command, "server command of the new arm, as --base")->required();
  app->add_option("--ready-timeout", o.ready_timeout_s, "seconds a server may take until GET /v1/models answers 200")
      ->capture_default_str();
  app->add_option("--stop-grace", o.stop_grace_s, "seconds between SIGTERM and SIGKILL when stopping a server")
      ->capture_default_str();
  app->add_option("--log-dir", o.log_dir, "folder for the servers' and runs' logs (default: a new temp folder)");
  app->add_option("--plumb", o.plumb_binary, "the plumb executable that runs each bench (default: this one)");
  app->add_option("--json", cli.ab_json, "also write the results as JSON to this file");
  app->add_option("bench", o.bench_args, "after --: the bench and its options, e.g. -- concurrent --levels 1,2")
      ->required();
}

int run_bench(BenchCli& cli) {
  if (cli.concurrent_app->parsed()) return run_concurrent(cli.concurrent).finish(stdout, cli.concurrent.tool.json_path);
  if (cli.openai_app->parsed()) return run_openai(cli.openai).finish(stdout, cli.openai.tool.json_path);
  if (cli.cache_app->parsed()) {
    auto& o = cli.cache;
    o.require = cli.require_cold ? CacheRequirement::cold : cli.require_reuse ? CacheRequirement::reuse : CacheRequirement::none;
    o.token_id_lo = cli.token_ids.at(0);
    o.token_id_hi = cli.token_ids.at(1);
    return run_cache(o).finish(stdout, o.tool.json_path);
  }
  return run_ab(cli.ab).finish(stdout, cli.ab_json);
}

const plumb::cli::RegisterCommand reg("bench", "benchmark an OpenAI-compatible server (concurrent, openai, cache, ab)",
                                      [](CLI::App& app) {
                                        auto cli = std::make_shared<BenchCli>();
                                        add_concurrent(app, *cli);
                                        add_openai(app, *cli);
                                        add_cache(app, *cli);
                                        add_ab(app, *cli);
                                        app.require_subcommand(1);
                                        return [cli] {
                                          const int status = run_bench(*cli);
                                          std::fflush(stdout);
                                          return status;
                                        };
                                      });

}  // namespace
