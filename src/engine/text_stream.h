// Generated ids -> text for streaming and stop strings. The engine holds one TextStream per request; the
// tokenizer side supplies the factory (text pieces are complete UTF-8; a partial character waits).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace plumb::engine {

class TextStream {
 public:
  virtual ~TextStream() = default;
  virtual std::string push(int32_t id) = 0;  // text completed by this id (may be empty)
  virtual std::string flush() = 0;           // whatever is held back at the end
};
using TextStreamFactory = std::function<std::unique_ptr<TextStream>()>;

// Holds back text that could still become a stop string; reports the first match.
class StopStringMatcher {
 public:
  explicit StopStringMatcher(std::vector<std::string> stops);
  // Adds text; returns the text now safe to emit. After a match, returns the text before it and matched() is true.
  std::string push(std::string_view piece);
  std::string flush();  // the held-back text at the end of generation (no match)
  bool matched() const { return matched_; }

 private:
  std::vector<std::string> stops_;
  std::string pending_;
  bool matched_ = false;
};

}  // namespace plumb::engine
