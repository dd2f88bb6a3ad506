#include "bench/ab_bench.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "base/error.h"
#include "bench/child_process.h"
#include "bench/noise_rule.h"
#include "bench/openai_client.h"
#include "bench/server_url.h"

namespace plumb::bench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr auto kReadyPoll = std::chrono::milliseconds(100);
constexpr size_t kLogTailBytes = 2000;

struct RunPlan {
  const char* label;  // "warm-up", "base 1", ...
  bool is_new;
  bool measured;
};
constexpr std::array<RunPlan, 5> kRuns = {{{"warm-up (base, discarded)", false, false},
                                           {"base 1", false, true},
                                           {"new 1", true, true},
                                           {"new 2", true, true},
                                           {"base 2", false, true}}};

void validate(const AbOptions& o) {
  if (o.base_command.empty() || o.new_command.empty()) fail("bench ab: give both --base and --new server commands");
  if (o.bench_args.empty())
    fail("bench ab: give the bench to run after --, for example: -- concurrent --levels 1,2 --tokens 64");
  const std::string& tool = o.bench_args.front();
  if (tool != "concurrent" && tool != "openai" && tool != "cache")
    fail("bench ab: '{}' is not a bench to run (concurrent, openai or cache)", tool);
  for (const auto& a : o.bench_args)
    for (const char* own : {"--url", "--json"})
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        fail("bench ab: leave out {}: ab gives each run its own server address and JSON file", own);
}

std::string self_executable() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) fail("bench ab: cannot find the plumb executable (/proc/self/exe): {}; give --plumb", ec.message());
  return p.string();
}

std::string make_log_dir(const std::string& wanted) {
  if (!wanted.empty()) {
    fs::create_directories(wanted);
    return wanted;
  }
  std::string templ = (fs::temp_directory_path() / "plumb-ab-XXXXXX").string();
  if (!mkdtemp(templ.data())) fail("bench ab: cannot create a folder for the logs under {}", fs::temp_directory_path().string());
  return templ;
}

std::string log_tail(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > kLogTailBytes ? "..." + text.substr(text.size() - kLogTailBytes) : text;
}

void wait_ready(ChildProcess& server, const ServerUrl& url, const AbOptions& o, const std::string& label,
                const std::string& log) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(o.ready_timeout_s);
  ClientOptions probe;
  probe.timeout_s = 2;
  for (;;) {
    if (!server.running())
      fail("bench ab: the server of run '{}' exited before it was ready; its output ({}):\n{}", label, log, log_tail(log));
    // Not /health: a server may be live there while it still loads the model (plumb serve answers 503 meanwhile).
    if (get_status(url, url.api("/models"), probe) == 200) return;
    if (Clock::now() >= deadline) {
      server.stop(o.stop_grace_s);
      fail("bench ab: the server of run '{}' was not ready within {} s; its output ({}):\n{}", label,
           o.ready_timeout_s, log, log_tail(log));
    }
    std::this_thread::sleep_for(kReadyPoll);
  }
}

json read_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  json j = json::parse(in, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

json run_once(const AbOptions& o, const std::string& plumb, const std::string& dir, size_t index) {
  const RunPlan& plan = kRuns[index];
  const std::string& command = plan.is_new ? o.new_command : o.base_command;
  const int port = free_port();
  const ServerUrl url{"127.0.0.1", port, ""};
  const std::string stem = fmt::format("{}/run{}-{}", dir, index, plan.is_new ? "new" : "base");
  const std::string server_log = stem + "-server.log", bench_log = stem + "-bench.log", json_path = stem + ".json";

  spdlog::info("bench ab: run {}/{} ({}) on port {}", index + 1, kRuns.size(), plan.label, port);
  ChildProcess server({"/bin/sh", "-c", substitute_port(command, port)}, {fmt::format("PORT={}", port)}, server_log);
  wait_ready(server, url, o, plan.label, server_log);

  std::vector<std::string> argv = {plumb, "bench"};
  argv.insert(argv.end(), o.bench_args.begin(), o.bench_args.end());
  argv.insert(argv.end(), {"--url", url.text(), "--json", json_path});
  ChildProcess bench(argv, {}, bench_log);
  const int bench_status = bench.wait();
  const int server_status = server.stop(o.stop_grace_s);

  return {{"run", index},
          {"label", plan.label},
          {"arm", plan.is_new ? "new" : "base"},
          {"measured", plan.measured},
          {"port", port},
          {"command", substitute_port(command, port)},
          {"bench_exit_status", bench_status},
          {"server_exit_status", server_status},
          {"server_log", server_log},
          {"bench_log", bench_log},
          {"report", read_report(json_path)}};
}

// (cell, metric) of the measured runs, in the order the first measured run lists them.
struct MetricSeries {
  std::string cell, name;
  bool higher_is_better = true;
  std::map<size_t, double> by_run;
};

std::vector<MetricSeries> collect_metrics(const json& runs) {
  std::vector<MetricSeries> out;
  std::map<std::pair<std::string, std::string>, size_t> where;
  for (const auto& run : runs) {
    if (!run["measured"].get<bool>() || !run["report"].is_object()) continue;
    for (const auto& m : run["report"].value("metrics", json::array())) {
      const auto key = std::pair{m["cell"].get<std::string>(), m["name"].get<std::string>()};
      auto [it, added] = where.try_emplace(key, out.size());
      if (added) out.push_back({key.first, key.second, m["better"] == "higher", {}});
      out[it->second].by_run[run["run"].get<size_t>()] = m["value"].get<double>();
    }
  }
  return out;
}

std::string number(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

std::string substitute_port(std::string command, int port) {
  const std::string token = "{port}", value = std::to_string(port);
  for (size_t at = command.find(token); at != std::string::npos; at = command.find(token, at + value.size()))
    command.replace(at, token.size(), value);
  return command;
}

Report run_ab(const AbOptions& o) {
  validate(o);
  const std::string plumb = o.plumb_binary.empty() ? self_executable() : o.plumb_binary;
  const std::string dir = make_log_dir(o.log_dir);

  Report report;
  report.tool = "ab";
  report.settings = {{"base", o.base_command}, {"new", o.new_command}, {"bench", o.bench_args},
                     {"order", "warm-up (discarded), base, new, new, base"}, {"margin", 0.01}, {"log_dir", dir}};
  report.table.header = {"cell", "metric", "better", "base 1", "new 1", "new 2", "base 2", "new/base", "verdict"};

  json runs = json::array();
  for (size_t i = 0; i < kRuns.size(); ++i) {
    runs.push_back(run_once(o, plumb, dir, i));
    const json& run = runs.back();
    if (run["bench_exit_status"].get<int>() != 0) {
      std::string detail;
      if (run["report"].is_object())
        for (const auto& p : run["report"].value("problems", json::array())) detail += "\n  " + p.get<std::string>();
      report.problems.push_back(fmt::format("run '{}': the bench exited with status {} (log {}){}", kRuns[i].label,
                                            run["bench_exit_status"].get<int>(), run["bench_log"].get<std::string>(),
                                            detail));
    }
  }
  report.details["runs"] = runs;
  report.details["log_dir"] = dir;

  for (const auto& series : collect_metrics(runs)) {
    std::vector<std::string> row = {series.cell, series.name, series.higher_is_better ? "higher" : "lower"};
    bool complete = true;
    for (size_t run : {1, 2, 3, 4}) {
      auto it = series.by_run.find(run);
      complete = complete && it != series.by_run.end() && it->second > 0;
      row.push_back(it == series.by_run.end() ? "-" : number(it->second));
    }
    json cell = {{"cell", series.cell}, {"metric", series.name}, {"better", series.higher_is_better ? "higher" : "lower"}};
    if (!complete) {
      row.insert(row.end(), {"-", "incomplete"});
      cell["verdict"] = "incomplete";
    } else {
      const auto& v = series.by_run;
      const auto cmp = apply_noise_rule({v.at(1), v.at(4)}, {v.at(2), v.at(3)}, series.higher_is_better);
      row.insert(row.end(), {fmt::format("{:.3f}..{:.3f}", cmp.ratio_min(), cmp.ratio_max()), verdict_name(cmp.verdict)});
      cell.update({{"base", {v.at(1), v.at(4)}}, {"new", {v.at(2), v.at(3)}}, {"ratios_new_over_base", cmp.ratios},
                   {"verdict", verdict_name(cmp.verdict)}});
    }
    report.table.rows.push_back(std::move(row));
    report.cells.push_back(std::move(cell));
  }
  if (report.cells.empty()) report.problems.push_back("no metric came back from the measured runs");
  return report;
}

}  // namespace plumb::bench
