// plumb: one binary, one subcommand per file in this folder (see command.h).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "base/error.h"
#include "base/version.h"
#include "cli/command.h"
#include "kernels/control.h"

namespace plumb::cli {
std::vector<CommandSpec>& command_registry() {
  static std::vector<CommandSpec> registry;
  return registry;
}
}  // namespace plumb::cli

int main(int argc, char** argv) {
  using namespace plumb;
  CLI::App app{"plumb: a DeepSeek-V4 inference engine whose output is bit-identical however it is served"};
  app.set_version_flag("--version", std::string(plumb::version_string()));
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "debug logging");

  auto& registry = cli::command_registry();
  std::sort(registry.begin(), registry.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::map<CLI::App*, std::function<int()>> runners;
  for (const auto& spec : registry) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.help);
    runners[sub] = spec.setup(*sub);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_pattern("%^%L%$ %H:%M:%S.%e %v");
  try {
    kernels::plant_from_environment();
    if (kernels::planted_control() != kernels::kNoControl)
      spdlog::warn("PLUMB_PLANT={}: a planted control is on, results are deliberately wrong", std::getenv("PLUMB_PLANT"));
    for (auto* sub : app.get_subcommands()) return runners.at(sub)();
  } catch (const plumb::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
