// Runs the plumb binary as a user would, for the tests of `plumb bench`: its exit status and its output.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench/child_process.h"

namespace plumb::test {

struct PlumbOutput {
  int status = -1;
  std::string text;  // stdout and stderr together
};

inline PlumbOutput run_plumb(const std::vector<std::string>& args, const std::filesystem::path& dir,
                             const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> argv = {PLUMB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto log = dir / "plumb.log";
  bench::ChildProcess child(argv, extra_env, log.string());
  PlumbOutput out;
  out.status = child.wait();
  std::ifstream in(log);
  out.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return out;
}

// This test binary, which the bench ab tests start in the roles of process_roles.cpp.
inline std::string this_test_binary() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

}  // namespace plumb::test
