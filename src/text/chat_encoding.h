// DeepSeek-V4's chat encoding: renders a conversation into the prompt text the model expects, byte for byte
// as the official encoding_dsv4.py (encode_messages) does. The text is then tokenized with
// allow_special=true (it contains the special-token strings).
//
// The rules, in short (chat_encoding.cpp has them in order):
// - BOS first; with thinking and reasoning_effort "max", a fixed "Reasoning Effort" paragraph follows it.
// - system text as is; tools as a "## Tools" block (schemas as Python json.dumps); response_format as a
//   "## Response Format" block. user turns are <｜User｜>text; the turn handed to the model ends with
//   <｜Assistant｜> and then <think> (thinking mode) or </think> (chat mode).
// - An assistant turn is [reasoning</think>]content[DSML tool calls]<｜end▁of▁sentence｜>.
// - Tool results become <tool_result>...</tool_result> blocks inside a user turn, ordered like the calls
//   they answer; consecutive user turns merge, joined by a blank line.
// - drop-thinking: in thinking mode, reasoning of assistant turns before the last user turn is dropped
//   (and developer turns before it too), unless some message carries tools.
// - Quick-instruction tasks append their token (<｜action｜> after <｜Assistant｜><think>/</think>; the others
//   right after the message).
//
// plumb's own additions: request-level tools and response_format go on the first system message (an empty
// one is inserted first when there is none), as servers of this model do; bad input (an unknown role, an
// unknown task, an empty developer message, tool-call arguments that are JSON but not an object, an unknown
// reasoning_effort) is a plumb::Error, where the official code raises. Tool-call arguments are parsed as JSON
// by nlohmann, which (unlike Python) refuses NaN/Infinity literals and reads integers beyond 64 bits as
// floats: such arguments render differently from the official code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "text/chat_types.h"

namespace plumb::text {

struct ChatRequestOptions {
  bool thinking = false;                        // thinking mode (<think>) or chat mode (</think>)
  std::optional<std::string> reasoning_effort;  // "max", "high" or none; only "max" changes the prompt
  nlohmann::ordered_json tools;                 // request-level OpenAI-format tools; null when none
  nlohmann::ordered_json response_format;       // request-level response schema; null when none
  bool drop_thinking = true;                    // the official default
  bool add_bos = true;
};

// The prompt text for the next assistant turn (or, when the last message is an assistant turn, the
// conversation as training text).
std::string render_chat_prompt(const std::vector<ChatMessage>& messages, const ChatRequestOptions& options);

// The DSML text of one assistant turn's tool calls ("\n\n<｜DSML｜tool_calls>...</｜DSML｜tool_calls>"), as
// rendered inside the assistant turn; empty for no calls.
std::string render_dsml_tool_calls(const std::vector<ChatToolCall>& calls);

}  // namespace plumb::text
