// `plumb gen-tiny OUT [--seed S]`: write a complete tiny DeepSeek-V4 checkpoint (release format) into a new folder.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "model/dsv4/tiny_checkpoint.h"

namespace {

struct GenTinyOptions {
  std::string out;
  uint64_t seed = 0;
};

const plumb::cli::RegisterCommand reg("gen-tiny", "write a tiny DeepSeek-V4 checkpoint (release format) for tests",
                                      [](CLI::App& app) {
                                        auto opts = std::make_shared<GenTinyOptions>();
                                        app.add_option("OUT", opts->out, "new (or empty) folder to write")->required();
                                        app.add_option("--seed", opts->seed,
                                                       "weights seed; the same seed gives byte-identical files");
                                        return [opts] {
                                          plumb::dsv4::TinySpec spec;
                                          spec.seed = opts->seed;
                                          plumb::dsv4::write_tiny_checkpoint(opts->out, spec);
                                          std::printf("wrote a tiny DeepSeek-V4 checkpoint (seed %llu) to %s\n",
                                                      (unsigned long long)opts->seed, opts->out.c_str());
                                          return 0;
                                        };
                                      });

}  // namespace
