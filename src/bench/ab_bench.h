// bench ab: compares two server commands with the noise rule (noise_rule.h). Each run starts its arm's server
// fresh on a free port, waits until GET /v1/models answers 200 (the model is loaded), runs `plumb bench <tool args>
// --url http://127.0.0.1:<port> --json ...` against it, and stops it (SIGTERM to its process group, SIGKILL after
// a grace period). Runs: a discarded warm-up (base), then base, new, new, base. The server command is run by
// /bin/sh with its port given both ways: "{port}" in the command is replaced by it, and $PORT holds it.
#pragma once

#include <string>
#include <vector>

#include "bench/report.h"

namespace plumb::bench {

struct AbOptions {
  std::string base_command, new_command;
  std::vector<std::string> bench_args;  // a tool and its options: "concurrent --levels 1,2" (no --url, --json)
  double ready_timeout_s = 300;
  double stop_grace_s = 10;
  std::string plumb_binary;  // empty: this executable
  std::string log_dir;       // empty: a new folder under the system temp folder
};

Report run_ab(const AbOptions& options);

// `command` with every "{port}" replaced by the port number.
std::string substitute_port(std::string command, int port);

}  // namespace plumb::bench
