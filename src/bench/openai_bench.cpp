#include "bench/openai_bench.h"

#include <fmt/format.h>

#include "base/error.h"
#include "bench/exactness.h"
#include "bench/prompts.h"
#include "bench/request_bodies.h"
#include "bench/stats.h"

namespace plumb::bench {

using nlohmann::json;

Report run_openai(const OpenaiOptions& o) {
  if (o.tokens < 1) fail("--tokens: {} must be 1 or more", o.tokens);
  if (o.reps < 1) fail("--reps: {} must be 1 or more", o.reps);
  const Target t = resolve_target(o.tool);
  const auto origin = Clock::now();

  Report report;
  report.tool = "openai";
  report.settings = {{"url", t.url.text()}, {"model", t.model}, {"tokens", o.tokens}, {"reps", o.reps},
                     {"seed", o.tool.seed}, {"temperature", 0}};
  report.table.header = {"prompt", "ttft ms", "decode tok/s", "tokens", "errors", "token_sha256", "reps"};

  for (const NamedPrompt* prompt : {&code_prompt(), &chat_prompt()}) {
    const GenerationSettings s{.max_tokens = o.tokens, .temperature = 0, .seed = o.tool.seed, .draft = std::nullopt};
    const json body = chat_body(t.model, prompt->text, s);
    std::vector<StreamedReply> replies;
    std::vector<double> ttft_ms, decode, tokens;
    int errors = 0;
    Tally reps;
    for (int rep = 0; rep < o.reps; ++rep) {
      replies.push_back(stream_request(t.url, t.url.api("/chat/completions"), body, t.client));
      const StreamedReply& r = replies.back();
      json rec = r.to_json(origin);
      rec.update({{"prompt", prompt->name}, {"rep", rep}});
      if (rep > 0) {
        const Match m = compare_replies(r, replies.front());
        reps.add(m);
        rec["vs_rep0"] = match_name(m);
      }
      report.requests.push_back(std::move(rec));
      if (!r.ok) {
        ++errors;
        report.problems.push_back(fmt::format("{} prompt rep {}: {}", prompt->name, rep, r.error));
        continue;
      }
      if (auto v = r.ttft_s()) ttft_ms.push_back(*v * 1e3);
      if (auto v = r.decode_tok_s()) decode.push_back(*v);
      tokens.push_back(double(r.tokens()));
    }
    const auto ttft_med = median(ttft_ms), decode_med = median(decode), tokens_med = median(tokens);
    const std::string sha = replies.front().token_sha256.value_or("-");
    report.table.rows.push_back({prompt->name, format_number(ttft_med), format_number(decode_med),
                                 format_number(tokens_med, 0), std::to_string(errors), sha.substr(0, 16),
                                 reps.text()});
    report.cells.push_back({{"cell", prompt->name},
                            {"ttft_ms", ttft_ms},
                            {"decode_tok_s", decode},
                            {"ttft_ms_median", ttft_med ? json(*ttft_med) : json(nullptr)},
                            {"decode_tok_s_median", decode_med ? json(*decode_med) : json(nullptr)},
                            {"tokens_median", tokens_med ? json(*tokens_med) : json(nullptr)},
                            {"errors", errors},
                            {"token_sha256", replies.front().token_sha256 ? json(sha) : json(nullptr)},
                            {"reps_equal", reps.to_json()}});
    if (ttft_med) report.metrics.push_back({prompt->name, "ttft_ms", *ttft_med, false});
    if (decode_med) report.metrics.push_back({prompt->name, "decode_tok_s", *decode_med, true});
    if (reps.checked() && !reps.all_equal())
      report.problems.push_back(fmt::format("{} prompt: reps against rep 0: {}", prompt->name, reps.text()));
    // One rep has nothing to compare with, yet its hash must still be there.
    if (o.reps == 1 && replies.front().ok && !replies.front().token_sha256)
      report.problems.push_back(fmt::format("{} prompt: the reply has no token_sha256", prompt->name));
  }
  return report;
}

}  // namespace plumb::bench
