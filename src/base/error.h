// Errors in plumb are exceptions of one type carrying a message a user can act on ("model folder X: tensor
// layers.3.attn.wq_b.scale missing"). They are caught at the edges (CLI mains, HTTP handlers, engine rounds)
// and turned into exit codes or OpenAI-shaped errors; nothing in plumb aborts on bad input.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace plumb {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

// For invariants the code itself guarantees; a failure is a plumb bug, reported with its location.
#define PLUMB_CHECK(cond)                                                                        \
  do {                                                                                           \
    if (!(cond)) ::plumb::fail("internal check failed: {} ({}:{})", #cond, __FILE__, __LINE__); \
  } while (0)

}  // namespace plumb
