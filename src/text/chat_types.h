// The chat types shared by DeepSeek-V4's prompt rendering (chat_encoding.h), completion parsing
// (chat_parse.h) and the server's OpenAI mapping.
//
// A conversation is a list of ChatMessage. Roles, as DeepSeek-V4's official encoding defines them:
// - "system": instructions; may carry `tools` (OpenAI-format list) and `response_format`.
// - "user": a user turn; `task` asks for a quick-instruction token (see chat_encoding.h).
// - "assistant": `content`, `reasoning_content` (the thinking text) and `tool_calls`; `wo_eos` leaves the
//   turn open (no end-of-sentence) for the model to continue.
// - "tool": a tool result (`content`) answering `tool_call_id`; rendered inside a user turn.
// - "developer": DeepSeek's search-agent role, rendered as a user turn that may carry `tools` (this is not
//   OpenAI's "developer", which means system).
// - "latest_reminder": context such as date and locale, rendered after <｜latest_reminder｜>.
// Tool schemas and arguments are nlohmann::ordered_json / JSON text because key order is rendered as given.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace plumb::text {

struct ChatToolCall {
  std::string id;         // the OpenAI tool call id; orders the tool results that answer it
  std::string name;       // the function name
  std::string arguments;  // JSON text of the arguments object, as OpenAI carries it
};

struct ChatMessage {
  std::string role;
  std::string content;
  std::string reasoning_content;          // assistant
  std::vector<ChatToolCall> tool_calls;   // assistant
  std::string tool_call_id;               // tool
  std::string name;                       // OpenAI's participant name; the V4 encoding does not render it
  nlohmann::ordered_json tools;           // system, developer: OpenAI-format tools; null when none
  nlohmann::ordered_json response_format; // system, developer: a schema to reply in; null when none
  std::optional<std::string> task;        // quick-instruction task: action, query, authority, domain, title, read_url
  bool wo_eos = false;                    // assistant: no end-of-sentence after the turn
};

// An assistant completion split the way DeepSeek-V4's official parser splits it.
struct ParsedCompletion {
  std::string reasoning_content;
  std::string content;
  std::vector<ChatToolCall> tool_calls;  // ids empty: the caller assigns them
};

}  // namespace plumb::text
