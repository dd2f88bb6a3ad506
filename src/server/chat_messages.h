// Validation of the chat-specific parts of a request: the messages, the tools and tool_choice. Produces the
// normalized JSON the chat encoding renders (content parts joined into one string, only known keys kept).
#pragma once

#include <nlohmann/json.hpp>

namespace plumb::server {

// `messages` as sent; throws a 400 ApiError naming the message and field at fault.
nlohmann::ordered_json normalize_messages(const nlohmann::ordered_json& messages);

// The tools the prompt should describe: all of `tools` for tool_choice "auto" (or absent), none for "none",
// the named one for {"type": "function", "function": {"name": ...}}. Either pointer may be null.
nlohmann::ordered_json select_tools(const nlohmann::ordered_json* tools, const nlohmann::ordered_json* tool_choice);

}  // namespace plumb::server
