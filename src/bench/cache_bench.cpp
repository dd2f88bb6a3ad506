#include "bench/cache_bench.h"

#include <fmt/format.h>

#include "base/error.h"
#include "bench/exactness.h"
#include "bench/prompts.h"
#include "bench/request_bodies.h"
#include "bench/run_together.h"

namespace plumb::bench {
namespace {

using nlohmann::json;

const char* requirement_name(CacheRequirement r) {
  switch (r) {
    case CacheRequirement::none: return "none";
    case CacheRequirement::cold: return "cold";
    case CacheRequirement::reuse: return "reuse";
  }
  return "none";
}

// The requirement for one request, or an empty string when it is met.
std::string unmet_requirement(CacheRequirement require, bool is_first, const StreamedReply& r) {
  if (require == CacheRequirement::none || !r.ok) return {};
  if (!r.cached_tokens) return "the server reported no usage.prompt_tokens_details.cached_tokens";
  if (require == CacheRequirement::cold && *r.cached_tokens != 0)
    return fmt::format("--require-cold: {} cached tokens", *r.cached_tokens);
  if (require == CacheRequirement::reuse && !is_first && *r.cached_tokens <= 0)
    return "--require-reuse: 0 cached tokens";
  return {};
}

}  // namespace

Report run_cache(const CacheOptions& o) {
  if (o.prompt_tokens.empty()) fail("--prompt-tokens: give at least one length");
  for (int64_t n : o.prompt_tokens)
    if (n < 1) fail("--prompt-tokens: {} must be 1 or more", n);
  if (o.tokens < 1) fail("--tokens: {} must be 1 or more", o.tokens);
  const Target t = resolve_target(o.tool);
  const auto origin = Clock::now();

  Report report;
  report.tool = "cache";
  report.settings = {{"url", t.url.text()},          {"model", t.model},
                     {"prompt_tokens", o.prompt_tokens}, {"tokens", o.tokens},
                     {"require", requirement_name(o.require)}, {"token_ids", {o.token_id_lo, o.token_id_hi}},
                     {"seed", o.tool.seed},              {"temperature", 0}};
  report.table.header = {"prompt tokens", "request", "cached", "ttft ms", "usage prompt", "token_sha256", "vs first"};

  for (int64_t n : o.prompt_tokens) {
    const auto ids = token_prompt(o.tool.seed, n, o.token_id_lo, o.token_id_hi);
    const GenerationSettings s{.max_tokens = o.tokens, .temperature = 0, .seed = o.tool.seed, .draft = std::nullopt};
    const StreamCall call{t.url.api("/completions"), completion_body(t.model, ids, s)};

    std::vector<std::pair<std::string, StreamedReply>> replies;
    replies.emplace_back("first", stream_request(t.url, call.path, call.body, t.client));
    replies.emplace_back("repeat", stream_request(t.url, call.path, call.body, t.client));
    auto pair = run_together(t.url, {call, call}, t.client);
    replies.emplace_back("pair a", std::move(pair[0]));
    replies.emplace_back("pair b", std::move(pair[1]));

    const StreamedReply& first = replies.front().second;
    for (size_t i = 0; i < replies.size(); ++i) {
      const auto& [name, r] = replies[i];
      const std::string cell = fmt::format("prompt_tokens={} request={}", n, name);
      json rec = r.to_json(origin);
      rec.update({{"prompt_tokens_sent", n}, {"request", name}});
      std::string vs_first = "-";
      if (i > 0) {
        const Match m = compare_replies(r, first);
        vs_first = match_name(m);
        rec["vs_first"] = vs_first;
        if (m != Match::equal) report.problems.push_back(fmt::format("{}: token_sha256 against the first request: {}", cell, vs_first));
      } else if (r.ok && !r.token_sha256) {
        report.problems.push_back(fmt::format("{}: the reply has no token_sha256", cell));
      }
      if (!r.ok) report.problems.push_back(fmt::format("{}: {}", cell, r.error));
      if (auto unmet = unmet_requirement(o.require, i == 0, r); !unmet.empty())
        report.problems.push_back(fmt::format("{}: {}", cell, unmet));
      report.requests.push_back(rec);

      const auto ttft = r.ttft_s();
      const std::optional<double> ttft_ms = ttft ? std::optional<double>(*ttft * 1e3) : std::nullopt;
      report.table.rows.push_back({std::to_string(n), name,
                                   r.cached_tokens ? std::to_string(*r.cached_tokens) : "-", format_number(ttft_ms),
                                   r.prompt_tokens ? std::to_string(*r.prompt_tokens) : "-",
                                   r.token_sha256.value_or("-").substr(0, 16), vs_first});
      report.cells.push_back({{"cell", cell},
                              {"prompt_tokens", n},
                              {"request", name},
                              {"cached_tokens", rec["cached_tokens"]},
                              {"ttft_ms", ttft_ms ? json(*ttft_ms) : json(nullptr)},
                              {"token_sha256", rec["token_sha256"]},
                              {"vs_first", vs_first}});
      if (ttft_ms) report.metrics.push_back({cell, "ttft_ms", *ttft_ms, false});
    }
  }
  return report;
}

}  // namespace plumb::bench
