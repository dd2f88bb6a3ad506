// ChatMessage from the JSON messages of an OpenAI-style request (or of DeepSeek's official encoding tests):
// role, content (a string, null, or a list of {"type": "text", "text": ...} parts, joined), reasoning_content,
// tool_calls ({"id", "function": {"name", "arguments"}}; arguments given as an object are written as JSON
// text, absent ones as {}), tool_call_id, name, tools, response_format, task and wo_eos. Anything else in a message is ignored;
// a field of the wrong type is a plumb::Error naming the message and field.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "text/chat_types.h"

namespace plumb::text {

ChatMessage chat_message_from_json(const nlohmann::ordered_json& message, size_t index);
std::vector<ChatMessage> chat_messages_from_json(const nlohmann::ordered_json& messages);

}  // namespace plumb::text
