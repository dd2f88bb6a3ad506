// Reading chat messages from request JSON (see chat_json.h).
#include "text/chat_json.h"

#include "base/error.h"
#include "text/python_json.h"

namespace plumb::text {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string string_field(const ordered_json& m, const char* key, size_t index) {
  const auto it = m.find(key);
  if (it == m.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  fail("messages[{}].{} must be a string", index, key);
}

std::string content_field(const ordered_json& m, size_t index) {
  const auto it = m.find("content");
  if (it == m.end() || it->is_null() || it->is_string()) return string_field(m, "content", index);
  if (!it->is_array()) fail("messages[{}].content must be a string or a list of text parts", index);
  std::string text;
  for (const auto& part : *it) {
    if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") || !part["text"].is_string())
      fail("messages[{}].content: only text parts are supported", index);
    text += part["text"].get<std::string>();
  }
  return text;
}

}  // namespace

ChatMessage chat_message_from_json(const ordered_json& m, size_t index) {
  if (!m.is_object()) fail("messages[{}] must be an object", index);
  ChatMessage out;
  out.role = string_field(m, "role", index);
  if (out.role.empty()) fail("messages[{}] has no role", index);
  out.content = content_field(m, index);
  out.reasoning_content = string_field(m, "reasoning_content", index);
  out.tool_call_id = string_field(m, "tool_call_id", index);
  out.name = string_field(m, "name", index);
  if (const auto it = m.find("tools"); it != m.end()) out.tools = *it;
  if (const auto it = m.find("response_format"); it != m.end()) out.response_format = *it;
  if (const auto it = m.find("task"); it != m.end() && !it->is_null()) out.task = string_field(m, "task", index);
  if (const auto it = m.find("wo_eos"); it != m.end() && !it->is_null()) {
    if (!it->is_boolean()) fail("messages[{}].wo_eos must be true or false", index);
    out.wo_eos = it->get<bool>();
  }
  if (const auto it = m.find("tool_calls"); it != m.end() && !it->is_null()) {
    if (!it->is_array()) fail("messages[{}].tool_calls must be a list", index);
    for (size_t i = 0; i < it->size(); ++i) {
      const auto& call = (*it)[i];
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object())
        fail("messages[{}].tool_calls[{}] has no function object", index, i);
      const auto& function = call["function"];
      ChatToolCall c;
      c.id = call.contains("id") && call["id"].is_string() ? call["id"].get<std::string>() : "";
      if (!function.contains("name") || !function["name"].is_string())
        fail("messages[{}].tool_calls[{}].function.name must be a string", index, i);
      c.name = function["name"].get<std::string>();
      const auto arguments = function.find("arguments");
      if (arguments == function.end() || arguments->is_null()) {
        c.arguments = "{}";
      } else if (arguments->is_string()) {
        c.arguments = arguments->get<std::string>();
      } else {
        c.arguments = python_json_dumps(*arguments);
      }
      out.tool_calls.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<ChatMessage> chat_messages_from_json(const ordered_json& messages) {
  if (!messages.is_array()) fail("messages must be a list");
  std::vector<ChatMessage> out;
  for (size_t i = 0; i < messages.size(); ++i) out.push_back(chat_message_from_json(messages[i], i));
  return out;
}

}  // namespace plumb::text
