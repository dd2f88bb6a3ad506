// Splits a chat reply into reasoning_content and content deltas while it streams. Text that could be the start
// of a marker (the end of reasoning, the start of the tool-call block) or whitespace before one is held back
// until it is clear; from the tool-call block on nothing streams, and the block is parsed when the reply ends.
// At the end the complete parse is authoritative: finish() sends whatever it has beyond what was streamed,
// so the deltas joined equal the non-streaming reply.
#pragma once

#include <string>
#include <string_view>

#include "server/model_text.h"

namespace plumb::server {

class ReplySplitter {
 public:
  ReplySplitter(ReplyMarkers markers, bool thinking);

  struct Delta {
    std::string reasoning;
    std::string content;
    bool empty() const { return reasoning.empty() && content.empty(); }
  };
  Delta push(std::string_view text);
  // The rest of `final_reply` beyond what push() has released.
  Delta finish(const ChatReply& final_reply);

 private:
  enum class Phase { reasoning, content, tool_calls };
  void advance(Delta& out);

  ReplyMarkers markers_;
  Phase phase_;
  std::string pending_;
  std::string sent_reasoning_, sent_content_;
};

}  // namespace plumb::server
