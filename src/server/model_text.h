// What the server needs from the served model's tokenizer and chat encoding: ids <-> text, a streaming
// detokenizer for the engine, the chat prompt, and the split of a reply into reasoning, content and tool calls.
// The HTTP code sees only this; dsv4_text.h implements it with plumb::text for DeepSeek-V4.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text_stream.h"

namespace plumb::server {

struct ChatPromptOptions {
  bool thinking = false;         // the reply starts with reasoning
  std::string reasoning_effort;  // empty: the model's default
};

struct ToolCall {
  std::string name;
  std::string arguments;  // a JSON object, as text
};

struct ChatReply {
  std::string reasoning_content;
  std::string content;
  std::vector<ToolCall> tool_calls;
};

// Text that separates the parts of a generated reply, for splitting it while it streams.
struct ReplyMarkers {
  std::string reasoning_end;    // ends reasoning_content
  std::string tool_calls_begin; // starts the tool-call block (everything from it on is parsed at the end)
};

class ModelText {
 public:
  virtual ~ModelText() = default;

  virtual int32_t vocab_size() const = 0;
  // Special-token text in `text` becomes the special token.
  virtual std::vector<int32_t> encode(std::string_view text) const = 0;
  virtual std::string decode(std::span<const int32_t> ids) const = 0;
  // The bytes of one token (a piece of a multi-byte character is possible).
  virtual std::string token_bytes(int32_t id) const = 0;
  // Streams of generated text the engine uses (special tokens included as their text).
  virtual engine::TextStreamFactory text_streams() const = 0;

  // The prompt for `messages` and `tools` (both normalized by chat_messages.h), ending where the reply begins.
  virtual std::string render_chat(const nlohmann::ordered_json& messages, const nlohmann::ordered_json& tools,
                                  const ChatPromptOptions& options) const = 0;
  // A complete generated reply split into its parts.
  virtual ChatReply parse_reply(std::string_view generated, const ChatPromptOptions& options) const = 0;
  virtual ReplyMarkers reply_markers() const = 0;
};

}  // namespace plumb::server
