// bench concurrent: levels of concurrent streams that start together, at each temperature, repeated. A cell's
// speed is the aggregate rate sum(tokens - 1) / (last token time - first token time) over all its streams (the
// median over reps). With --alone each reply is checked against the same request run alone (E1), with --serial
// against the same request with "draft": false (E2), by token_sha256.
#pragma once

#include <optional>
#include <vector>

#include "bench/openai_client.h"
#include "bench/report.h"
#include "bench/tool_options.h"

namespace plumb::bench {

struct ConcurrentOptions {
  ToolOptions tool;
  std::vector<int> levels = {1, 2, 3, 4};
  int tokens = 128;
  int reps = 3;
  std::vector<double> temperatures = {0};
  bool alone = false;
  bool serial = false;
};

Report run_concurrent(const ConcurrentOptions& options);

// sum(tokens - 1) / (latest last piece - earliest first piece) over the replies that finished.
std::optional<double> aggregate_tok_s(const std::vector<StreamedReply>& replies);

}  // namespace plumb::bench
