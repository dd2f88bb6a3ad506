// `plumb version`: the build identity (also in --version).
#include <cstdio>

#include "base/version.h"
#include "cli/command.h"

namespace {
const plumb::cli::RegisterCommand reg("version", "print the build identity", [](CLI::App&) {
  return [] {
    std::printf("plumb %s\n", std::string(plumb::version_string()).c_str());
    return 0;
  };
});
}  // namespace
