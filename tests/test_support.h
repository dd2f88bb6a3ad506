// Helpers shared by the test folders: where the fixtures are, a scratch directory per test, running a command, and
// the message of an expected plumb::Error.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <unistd.h>

#include "base/error.h"

namespace plumb::test {

// ../shared/fixtures, or $PLUMB_FIXTURES; nullopt when absent (tests then skip, saying why).
inline std::optional<std::filesystem::path> fixtures_dir() {
  std::filesystem::path p;
  if (const char* env = std::getenv("PLUMB_FIXTURES"); env && *env) {
    p = env;
  } else {
    p = PLUMB_FIXTURES_DIR;
  }
  if (!std::filesystem::is_directory(p)) return std::nullopt;
  return p;
}

#define PLUMB_REQUIRE_FIXTURES(var)                                                              \
  const auto var##_opt = ::plumb::test::fixtures_dir();                                        \
  if (!var##_opt) GTEST_SKIP() << "fixtures not found (set PLUMB_FIXTURES to shared/fixtures)"; \
  const std::filesystem::path var = *var##_opt

// A fresh empty directory under the system temp dir, removed when the object dies.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "plumb";
    for (auto& c : name)
      if (c == '/') c = '_';
    path_ = std::filesystem::temp_directory_path() / ("plumb-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int status;  // the exit status, -1 when the command did not exit normally
  std::string output;
};

// Runs a shell command, capturing stdout and stderr together.
inline CommandResult run_command(const std::string& command) {
  CommandResult r{-1, {}};
  std::FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.output.append(buf, n);
  const int raw = ::pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// The plumb::Error message `fn` throws; a test failure when it throws nothing or something else.
inline std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const plumb::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-plumb exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

}  // namespace plumb::test
