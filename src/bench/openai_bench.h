// bench openai: the two fixed prompts (code and chat), each streamed --reps times one after another; TTFT and
// decode rate (tokens - 1) / (last piece - first piece) as medians, and every rep's token_sha256. The reps of a
// prompt send the same request, so their hashes must be equal (E5, run twice).
#pragma once

#include "bench/report.h"
#include "bench/tool_options.h"

namespace plumb::bench {

struct OpenaiOptions {
  ToolOptions tool;
  int tokens = 256;
  int reps = 3;
};

Report run_openai(const OpenaiOptions& options);

}  // namespace plumb::bench
