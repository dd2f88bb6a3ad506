// `plumb synth`: release-width synthetic layers timed on the GPU against the bandwidth floor (kernels/cuda/synth.h).
#include "cli/command.h"
#include "kernels/cuda/synth.h"

namespace {
const plumb::cli::RegisterCommand reg("synth", "time release-width synthetic work on the GPU against the bandwidth floor",
                                      [](CLI::App& app) {
                                        auto o = std::make_shared<plumb::cuda::SynthOptions>();
                                        app.add_option("--rows", o->rows, "row counts to time")->delimiter(',');
                                        app.add_option("--repeats", o->repeats, "launches per timing");
                                        app.add_option("--json", o->json_path, "write the table as JSON");
                                        return [o] { return plumb::cuda::run_synth(*o); };
                                      });
}  // namespace
