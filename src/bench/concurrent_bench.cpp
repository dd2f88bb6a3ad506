#include "bench/concurrent_bench.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "bench/exactness.h"
#include "bench/prompts.h"
#include "bench/request_bodies.h"
#include "bench/run_together.h"
#include "bench/stats.h"

namespace plumb::bench {
namespace {

using nlohmann::json;

void validate(const ConcurrentOptions& o) {
  if (o.levels.empty()) fail("--levels: give at least one level");
  for (int l : o.levels)
    if (l < 1) fail("--levels: {} is not a number of streams (1 or more)", l);
  if (o.tokens < 1) fail("--tokens: {} must be 1 or more", o.tokens);
  if (o.reps < 1) fail("--reps: {} must be 1 or more", o.reps);
  if (o.temperatures.empty()) fail("--temperatures: give at least one temperature");
  for (double t : o.temperatures)
    if (!(t >= 0 && t <= 2)) fail("--temperatures: {} is outside [0, 2]", t);
}

// Stream i of every cell at one temperature sends the same request, so its references are shared by the cells.
StreamCall stream_call(const Target& t, const ConcurrentOptions& o, size_t stream, double temperature,
                       std::optional<bool> draft) {
  GenerationSettings s{.max_tokens = o.tokens, .temperature = temperature, .seed = o.tool.seed + stream, .draft = draft};
  return {t.url.api("/chat/completions"), chat_body(t.model, stream_prompt(stream), s)};
}

struct CellAccumulator {
  std::vector<double> aggregate, ttft_ms, tokens;
  int errors = 0;
  int64_t drafts_proposed = 0, drafts_accepted = 0;
  bool has_drafts = false;
  Tally alone, serial;
};

std::string drafts_text(const CellAccumulator& c) {
  if (!c.has_drafts) return "-";
  return fmt::format("{}/{}", c.drafts_accepted, c.drafts_proposed);
}

class ConcurrentRun {
 public:
  ConcurrentRun(const ConcurrentOptions& o, Target t) : o_(o), t_(std::move(t)), origin_(Clock::now()) {
    report_.tool = "concurrent";
    report_.settings = {{"url", t_.url.text()}, {"model", t_.model},     {"levels", o.levels},
                        {"tokens", o.tokens},    {"reps", o.reps},        {"temperatures", o.temperatures},
                        {"alone", o.alone},      {"serial", o.serial},    {"seed", o.tool.seed}};
    report_.table.header = {"level", "temp", "agg tok/s", "ttft ms", "tokens", "errors", "drafts acc/prop",
                            "alone", "serial"};
  }

  Report run() {
    const int max_level = *std::max_element(o_.levels.begin(), o_.levels.end());
    for (double temperature : o_.temperatures) {
      const auto alone = o_.alone ? references(max_level, temperature, std::nullopt, "alone") : std::vector<StreamedReply>();
      const auto serial = o_.serial ? references(max_level, temperature, false, "serial") : std::vector<StreamedReply>();
      for (int level : o_.levels) run_cell(level, temperature, alone, serial);
    }
    return std::move(report_);
  }

 private:
  // Each stream's request run alone, one after another.
  std::vector<StreamedReply> references(int streams, double temperature, std::optional<bool> draft, const char* role) {
    std::vector<StreamedReply> out;
    for (int i = 0; i < streams; ++i) {
      const auto call = stream_call(t_, o_, size_t(i), temperature, draft);
      out.push_back(stream_request(t_.url, call.path, call.body, t_.client));
      json rec = out.back().to_json(origin_);
      rec.update({{"role", role}, {"temperature", temperature}, {"stream", i}, {"seed", o_.tool.seed + uint64_t(i)}});
      report_.requests.push_back(std::move(rec));
      if (!out.back().ok)
        report_.problems.push_back(fmt::format("{} reference, temperature {} stream {}: {}", role, temperature, i,
                                               out.back().error));
    }
    return out;
  }

  void run_cell(int level, double temperature, const std::vector<StreamedReply>& alone,
                const std::vector<StreamedReply>& serial) {
    CellAccumulator cell;
    std::vector<StreamCall> calls;
    for (int i = 0; i < level; ++i) calls.push_back(stream_call(t_, o_, size_t(i), temperature, std::nullopt));
    for (int rep = 0; rep < o_.reps; ++rep) {
      const auto replies = run_together(t_.url, calls, t_.client);
      if (auto agg = aggregate_tok_s(replies)) cell.aggregate.push_back(*agg);
      for (int i = 0; i < level; ++i) take_reply(cell, replies[size_t(i)], level, temperature, rep, i, alone, serial);
    }
    add_row(cell, level, temperature);
  }

  void take_reply(CellAccumulator& cell, const StreamedReply& r, int level, double temperature, int rep, int stream,
                  const std::vector<StreamedReply>& alone, const std::vector<StreamedReply>& serial) {
    json rec = r.to_json(origin_);
    rec.update({{"role", "concurrent"}, {"level", level}, {"temperature", temperature}, {"rep", rep},
                {"stream", stream}, {"seed", o_.tool.seed + uint64_t(stream)}});
    if (!r.ok) {
      ++cell.errors;
      report_.problems.push_back(
          fmt::format("level {} temperature {} rep {} stream {}: {}", level, temperature, rep, stream, r.error));
    } else {
      if (auto ttft = r.ttft_s()) cell.ttft_ms.push_back(*ttft * 1e3);
      cell.tokens.push_back(double(r.tokens()));
    }
    if (r.drafts_proposed && r.drafts_accepted) {
      cell.has_drafts = true;
      cell.drafts_proposed += *r.drafts_proposed;
      cell.drafts_accepted += *r.drafts_accepted;
    }
    if (o_.alone) {
      const Match m = compare_replies(r, alone[size_t(stream)]);
      cell.alone.add(m);
      rec["alone"] = match_name(m);
    }
    if (o_.serial) {
      const Match m = compare_replies(r, serial[size_t(stream)]);
      cell.serial.add(m);
      rec["serial"] = match_name(m);
    }
    report_.requests.push_back(std::move(rec));
  }

  void add_row(const CellAccumulator& c, int level, double temperature) {
    const auto agg = median(c.aggregate);
    const auto ttft = median(c.ttft_ms);
    const auto tokens = median(c.tokens);
    const std::string cell_name = fmt::format("level={} temperature={}", level, temperature);
    report_.table.rows.push_back({std::to_string(level), fmt::format("{}", temperature), format_number(agg),
                                  format_number(ttft), format_number(tokens, 0), std::to_string(c.errors),
                                  drafts_text(c), c.alone.text(), c.serial.text()});
    report_.cells.push_back({{"cell", cell_name},
                             {"level", level},
                             {"temperature", temperature},
                             {"aggregate_tok_s", c.aggregate},
                             {"aggregate_tok_s_median", agg ? json(*agg) : json(nullptr)},
                             {"ttft_ms_median", ttft ? json(*ttft) : json(nullptr)},
                             {"tokens_median", tokens ? json(*tokens) : json(nullptr)},
                             {"errors", c.errors},
                             {"drafts", {{"proposed", c.drafts_proposed}, {"accepted", c.drafts_accepted}}},
                             {"alone", c.alone.to_json()},
                             {"serial", c.serial.to_json()}});
    if (agg) report_.metrics.push_back({cell_name, "aggregate_tok_s", *agg, true});
    if (ttft) report_.metrics.push_back({cell_name, "ttft_ms", *ttft, false});
    for (const auto& [name, tally] : {std::pair{"--alone", &c.alone}, std::pair{"--serial", &c.serial}})
      if (tally->checked() && !tally->all_equal())
        report_.problems.push_back(fmt::format("level {} temperature {}: {} {}", level, temperature, name, tally->text()));
  }

  const ConcurrentOptions& o_;
  Target t_;
  Clock::time_point origin_;
  Report report_;
};

}  // namespace

std::optional<double> aggregate_tok_s(const std::vector<StreamedReply>& replies) {
  int64_t tokens = 0;
  std::optional<Clock::time_point> first, last;
  for (const auto& r : replies) {
    if (!r.ok || !r.first_piece || !r.last_piece) continue;
    tokens += r.tokens() - 1;
    first = first ? std::min(*first, *r.first_piece) : *r.first_piece;
    last = last ? std::max(*last, *r.last_piece) : *r.last_piece;
  }
  if (!first || *last <= *first || tokens <= 0) return std::nullopt;
  return double(tokens) / std::chrono::duration<double>(*last - *first).count();
}

Report run_concurrent(const ConcurrentOptions& options) {
  validate(options);
  return ConcurrentRun(options, resolve_target(options.tool)).run();
}

}  // namespace plumb::bench
