#include "server/chat_messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "server/api_error.h"
#include "server/json_fields.h"

namespace plumb::server {
namespace {

constexpr std::array<std::string_view, 5> kRoles = {"system", "developer", "user", "assistant", "tool"};

// OpenAI's rule for function names; it also keeps names safe inside the DSML name="..." attribute.
bool valid_function_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// A string, or an array of {"type": "text", "text": ...} parts (joined with newlines); nullopt when absent.
std::optional<std::string> message_content(const json& msg, const std::string& path) {
  auto it = msg.find("content");
  if (it == msg.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (!it->is_array())
    throw invalid_request(fmt::format("'{}.content' must be a string or an array of content parts, got {}", path,
                                      json_type_name(*it)),
                          path + ".content");
  std::string text;
  for (size_t k = 0; k < it->size(); ++k) {
    const json& part = (*it)[k];
    const std::string part_path = fmt::format("{}.content[{}]", path, k);
    if (!part.is_object()) throw invalid_request(fmt::format("'{}' must be an object", part_path), part_path);
    FieldReader f(part, part_path);
    const auto type = f.string("type");
    if (!type) throw invalid_request(fmt::format("'{}.type' is required", part_path), part_path + ".type");
    if (*type != "text")
      throw invalid_request(fmt::format("'{}.type' is '{}': only text content parts are supported", part_path, *type),
                            part_path + ".type");
    const auto part_text = f.string("text");
    if (!part_text) throw invalid_request(fmt::format("'{}.text' is required", part_path), part_path + ".text");
    if (k > 0) text += '\n';
    text += *part_text;
  }
  return text;
}

// The "function" object a tool or tool call must have.
const json& required_function(FieldReader& f, const std::string& path) {
  const json* fn = f.object("function");
  if (!fn) throw invalid_request(fmt::format("'{}.function' is required", path), path + ".function");
  return *fn;
}

// Its name, which must be one OpenAI accepts.
std::string function_name(FieldReader& ff) {
  const auto name = ff.string("name");
  if (!name || !valid_function_name(*name))
    throw invalid_request(fmt::format("'{}' must be 1-64 letters, digits, '_' or '-'", ff.param("name")),
                          ff.param("name"));
  return *name;
}

json normalize_tool_call(const json& call, const std::string& path) {
  if (!call.is_object()) throw invalid_request(fmt::format("'{}' must be an object", path), path);
  FieldReader f(call, path);
  const auto type = f.string("type").value_or("function");
  if (type != "function")
    throw invalid_request(fmt::format("'{}.type' must be 'function', got '{}'", path, type), path + ".type");
  FieldReader ff(required_function(f, path), path + ".function");
  const std::string name = function_name(ff);
  const std::string arguments = ff.string("arguments").value_or("{}");
  const json parsed = json::parse(arguments, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object())
    throw invalid_request(fmt::format("'{}' must be a JSON object in a string", ff.param("arguments")),
                          ff.param("arguments"));
  json out = {{"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
  if (auto id = f.string("id")) out["id"] = *id;
  return out;
}

json normalize_message(const json& msg, const std::string& path) {
  if (!msg.is_object()) throw invalid_request(fmt::format("'{}' must be an object", path), path);
  FieldReader f(msg, path);
  const auto role = f.string("role");
  if (!role) throw invalid_request(fmt::format("'{}.role' is required", path), path + ".role");
  if (std::find(kRoles.begin(), kRoles.end(), *role) == kRoles.end())
    throw invalid_request(fmt::format("'{}.role' is '{}'; expected one of system, developer, user, assistant, tool",
                                      path, *role),
                          path + ".role");
  json out = {{"role", *role}};
  const auto content = message_content(msg, path);
  if (content) out["content"] = *content;
  if (auto name = f.string("name")) out["name"] = *name;

  if (*role == "assistant") {
    if (auto reasoning = f.string("reasoning_content")) out["reasoning_content"] = *reasoning;
    if (const json* calls = f.array("tool_calls"); calls && !calls->empty()) {
      out["tool_calls"] = json::array();
      for (size_t k = 0; k < calls->size(); ++k)
        out["tool_calls"].push_back(normalize_tool_call((*calls)[k], fmt::format("{}.tool_calls[{}]", path, k)));
    }
    if (!content && !out.contains("tool_calls"))
      throw invalid_request(fmt::format("'{}' needs 'content' or 'tool_calls'", path), path + ".content");
    if (!content) out["content"] = "";
  } else {
    if (!content) throw invalid_request(fmt::format("'{}.content' is required", path), path + ".content");
    if (f.has("tool_calls"))
      throw invalid_request(fmt::format("'{}.tool_calls' is only allowed on assistant messages", path),
                            path + ".tool_calls");
  }
  if (*role == "tool") {
    const auto id = f.string("tool_call_id");
    if (!id) throw invalid_request(fmt::format("'{}.tool_call_id' is required", path), path + ".tool_call_id");
    out["tool_call_id"] = *id;
  }
  return out;
}

json normalize_tool(const json& tool, const std::string& path) {
  if (!tool.is_object()) throw invalid_request(fmt::format("'{}' must be an object", path), path);
  FieldReader f(tool, path);
  const auto type = f.string("type");
  if (type != "function")
    throw invalid_request(fmt::format("'{}.type' must be 'function'", path), path + ".type");
  FieldReader ff(required_function(f, path), path + ".function");
  const std::string name = function_name(ff);
  json out_fn = {{"name", name}};
  if (auto description = ff.string("description")) out_fn["description"] = *description;
  if (const json* params = ff.object("parameters")) out_fn["parameters"] = *params;
  ff.boolean("strict");
  return {{"type", "function"}, {"function", out_fn}};
}

}  // namespace

json normalize_messages(const json& messages) {
  if (!messages.is_array())
    throw invalid_request(fmt::format("'messages' must be an array, got {}", json_type_name(messages)), "messages");
  if (messages.empty()) throw invalid_request("'messages' must contain at least one message", "messages");
  json out = json::array();
  for (size_t i = 0; i < messages.size(); ++i)
    out.push_back(normalize_message(messages[i], fmt::format("messages[{}]", i)));
  return out;
}

json select_tools(const json* tools, const json* tool_choice) {
  json all = json::array();
  if (tools) {
    if (!tools->is_array())
      throw invalid_request(fmt::format("'tools' must be an array, got {}", json_type_name(*tools)), "tools");
    for (size_t i = 0; i < tools->size(); ++i) all.push_back(normalize_tool((*tools)[i], fmt::format("tools[{}]", i)));
  }
  if (!tool_choice || tool_choice->is_null()) return all;
  if (all.empty()) throw invalid_request("'tool_choice' is only allowed when 'tools' are given", "tool_choice");
  if (tool_choice->is_string()) {
    const auto choice = tool_choice->get<std::string>();
    if (choice == "auto") return all;
    if (choice == "none") return json::array();
    if (choice == "required")
      throw invalid_request("tool_choice 'required' is not supported: plumb does not constrain decoding; use 'auto'",
                            "tool_choice");
    throw invalid_request(fmt::format("'tool_choice' is '{}'; expected 'auto', 'none' or a function", choice),
                          "tool_choice");
  }
  if (!tool_choice->is_object())
    throw invalid_request(fmt::format("'tool_choice' must be a string or an object, got {}",
                                      json_type_name(*tool_choice)),
                          "tool_choice");
  FieldReader f(*tool_choice, "tool_choice");
  if (f.string("type") != "function")
    throw invalid_request("'tool_choice.type' must be 'function'", "tool_choice.type");
  const json* fn = f.object("function");
  const auto name = fn ? FieldReader(*fn, "tool_choice.function").string("name") : std::nullopt;
  if (!name) throw invalid_request("'tool_choice.function.name' is required", "tool_choice.function.name");
  for (const auto& t : all)
    if (t["function"]["name"] == *name) return json::array({t});
  throw invalid_request(fmt::format("tool_choice names '{}', which is not among 'tools'", *name),
                        "tool_choice.function.name");
}

}  // namespace plumb::server
