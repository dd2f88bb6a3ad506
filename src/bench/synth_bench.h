// `plumb synth` (ENGINE.md section 7, docs/bench.md): release-width synthetic work against the bandwidth floor. On
// the CUDA backend the kernel classes alone (kernels/cuda/synth.h), then the layers as served (bench/synth_layers.h);
// on the CPU backend the layers only. One table (class, shape, rows, time, GB read, floor, fraction of the floor),
// the layer cells' dispatch classes (dense, experts, attention, glue; each op synchronized), optionally every op's
// time (--op-times), and the same cells as JSON with the version, commit, machine, backend and bandwidth.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace plumb::bench {

struct SynthOptions {
  std::string backend = "auto";  // cpu, cuda, or auto (cuda when a GPU answers)
  std::vector<int> rows = {1, 2, 4, 8, 16};
  int repeats = 20;
  int64_t context = 4096;
  int64_t distinct_experts = 0;  // 0: every routed expert has its own bytes
  std::string only;              // "", "kernels" or "layers"
  std::string config_path;       // a DeepSeek-V4 config.json for the layers; empty: the built-in DeepSeek-V4-Flash
  std::string json_path;
  bool op_times = false;  // also print the per-op table of the layer cells' traced calls
};

// Prints progress to stderr and the table to stdout; returns the exit status. Throws plumb::Error for bad options.
int run_synth(const SynthOptions& options);

}  // namespace plumb::bench
