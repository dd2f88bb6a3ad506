// `plumb synth`: release-width synthetic work timed against the bandwidth floor (bench/synth_bench.h): the CUDA
// kernel classes on a GPU, and the DeepSeek-V4 layers as served on either backend.
#include "bench/synth_bench.h"
#include "cli/command.h"

namespace {
const plumb::cli::RegisterCommand reg(
    "synth", "time release-width synthetic kernels and layers against the bandwidth floor", [](CLI::App& app) {
      auto o = std::make_shared<plumb::bench::SynthOptions>();
      app.add_option("--backend", o->backend, "cpu, cuda, or auto (cuda when a GPU answers)")
          ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
          ->capture_default_str();
      app.add_option("--rows", o->rows, "rows of one slot to time (a 4 slots x 1 row layer cell is always timed)")
          ->delimiter(',')
          ->capture_default_str();
      app.add_option("--repeats", o->repeats, "timed calls per cell")->capture_default_str();
      app.add_option("--context", o->context, "tokens already in each slot before the timed rows")
          ->capture_default_str();
      app.add_option("--distinct-experts", o->distinct_experts,
                     "routed experts with their own bytes (expert e reads e mod D); 0: all")
          ->capture_default_str();
      app.add_option("--only", o->only, "kernels or layers (default: both on CUDA, layers on the CPU)")
          ->check(CLI::IsMember({"kernels", "layers"}));
      app.add_option("--config", o->config_path,
                     "a DeepSeek-V4 config.json whose layers to time (default: the built-in DeepSeek-V4-Flash)");
      app.add_option("--json", o->json_path, "write the table and every cell as JSON");
      app.add_flag("--op-times", o->op_times,
                   "also print each op's time in the layer cells' traced calls (each op synchronized)");
      return [o] { return plumb::bench::run_synth(*o); };
    });
}  // namespace
