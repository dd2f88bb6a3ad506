// Subcommands register themselves here: one file per subcommand under src/cli, each with a static
// registration, so main.cpp never changes when a subcommand is added.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace plumb::cli {

// setup() adds the subcommand's options to `app` and returns the function that runs it (its exit status).
using CommandSetup = std::function<std::function<int()>(CLI::App& app)>;

struct CommandSpec {
  std::string name;
  std::string help;
  CommandSetup setup;
};

std::vector<CommandSpec>& command_registry();

struct RegisterCommand {
  RegisterCommand(std::string name, std::string help, CommandSetup setup) {
    command_registry().push_back({std::move(name), std::move(help), std::move(setup)});
  }
};

}  // namespace plumb::cli
