// bench cache: for each prompt length, a prompt of exactly that many token ids sent to /v1/completions as a first
// request, a repeat, and a concurrent pair (two requests started together). Per request: cached_tokens (as the
// server reports it in usage.prompt_tokens_details) and TTFT; every reply's token_sha256 must equal the first's
// (E3: a prompt-cache hit gives the tokens of a cold prompt). --require-cold needs every request to report 0 cached
// tokens; --require-reuse needs the repeat and both of the pair to report more than 0.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/report.h"
#include "bench/tool_options.h"

namespace plumb::bench {

enum class CacheRequirement { none, cold, reuse };

struct CacheOptions {
  ToolOptions tool;
  std::vector<int64_t> prompt_tokens = {2048, 8192};
  int tokens = 16;  // generated per request
  CacheRequirement require = CacheRequirement::none;
  int32_t token_id_lo = 100, token_id_hi = 900;  // prompt ids are drawn from [lo, hi)
};

Report run_cache(const CacheOptions& options);

}  // namespace plumb::bench
