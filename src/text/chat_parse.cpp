// The official DeepSeek-V4 completion parser's steps, with its regexes spelled out as string checks
// (Python's `$` also matches before one final newline, which the checks keep).
#include "text/chat_parse.h"

#include <map>
#include <optional>

#include "base/error.h"
#include "text/chat_tokens.h"
#include "text/python_json.h"
#include "text/utf8.h"

namespace plumb::text {
namespace {

const std::string kDsmlStr(kDsml);
const std::string kToolCallsStart = "\n\n<" + kDsmlStr + "tool_calls";
const std::string kToolCallsEnd = "</" + kDsmlStr + "tool_calls>";
const std::string kInvoke = "<" + kDsmlStr + "invoke";
const std::string kInvokeEnd = "</" + kDsmlStr + "invoke";
const std::string kParameter = "<" + kDsmlStr + "parameter";
const std::string kParameterEnd = "/" + kDsmlStr + "parameter";

struct Read {
  std::string_view content;             // text before the stop
  std::optional<std::string_view> stop; // which stop was found; none means the text ran out
};

// Reads from index to the earliest of the stops (the first listed wins a tie) and moves past it.
Read read_until_stop(std::string_view text, size_t& index, std::initializer_list<std::string_view> stops) {
  size_t best = std::string_view::npos;
  std::optional<std::string_view> matched;
  for (const std::string_view stop : stops) {
    const size_t at = text.find(stop, index);
    if (at != std::string_view::npos && (best == std::string_view::npos || at < best)) {
      best = at;
      matched = stop;
    }
  }
  Read r;
  if (matched) {
    r.content = text.substr(index, best - index);
    r.stop = matched;
    index = best + matched->size();
  } else {
    r.content = text.substr(index);
    index = text.size();
  }
  return r;
}

// Python's str.isspace set, which its regex \s uses.
bool python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Where `suffix` ends text under Python's `suffix$`: at the very end, or just before one final newline.
std::optional<size_t> ends_with_before_final_newline(std::string_view text, std::string_view suffix, size_t from) {
  if (text.size() >= from + suffix.size() && text.substr(text.size() - suffix.size()) == suffix)
    return text.size() - suffix.size();
  if (text.size() >= from + suffix.size() + 1 && text.back() == '\n' &&
      text.substr(text.size() - 1 - suffix.size(), suffix.size()) == suffix)
    return text.size() - 1 - suffix.size();
  return std::nullopt;
}

// ^\s*name="(.*?)">\n$
std::string parse_invoke_name(std::string_view content) {
  size_t pos = 0;
  while (pos < content.size()) {
    size_t next = pos;
    const auto c = utf8_next(content, next);
    if (!c || !python_space(*c)) break;
    pos = next;
  }
  constexpr std::string_view prefix = "name=\"";
  if (content.substr(pos, prefix.size()) == prefix) {
    const size_t start = pos + prefix.size();
    if (const auto end = ends_with_before_final_newline(content, "\">\n", start))
      return std::string(content.substr(start, *end - start));
  }
  fail("tool call format error: cannot read the tool name from {:?}", std::string(content));
}

struct Parameter {
  std::string name, value;
  bool is_string;
};

// ^ name="(.*?)" string="(true|false)">(.*?)<$
Parameter parse_parameter(std::string_view content) {
  constexpr std::string_view prefix = " name=\"";
  if (content.substr(0, prefix.size()) == prefix) {
    // The name ends at the first `" string="true">` or `" string="false">`.
    for (size_t q = prefix.size(); q < content.size(); ++q) {
      for (const bool is_string : {true, false}) {
        const std::string_view marker = is_string ? "\" string=\"true\">" : "\" string=\"false\">";
        if (content.substr(q, marker.size()) != marker) continue;
        const size_t value_start = q + marker.size();
        if (const auto end = ends_with_before_final_newline(content, "<", value_start)) {
          return {std::string(content.substr(prefix.size(), q - prefix.size())),
                  std::string(content.substr(value_start, *end - value_start)), is_string};
        }
        fail("parameter format error: {:?}", std::string(content));
      }
    }
  }
  fail("parameter format error: {:?}", std::string(content));
}

std::vector<ChatToolCall> parse_tool_calls(std::string_view text, size_t& index) {
  std::vector<ChatToolCall> calls;
  while (index < text.size()) {
    Read r = read_until_stop(text, index, {kInvoke, kToolCallsEnd});
    if (r.content != ">\n") fail("tool call format error: expected '>\\n' but got {:?}", std::string(r.content));
    if (r.stop == kToolCallsEnd) break;
    if (!r.stop) fail("tool call format error: the tool calls block is not closed");

    r = read_until_stop(text, index, {kParameter, kInvokeEnd});
    ChatToolCall call;
    call.name = parse_invoke_name(r.content);
    std::vector<Parameter> parameters;
    while (r.stop == kParameter) {
      const Read param = read_until_stop(text, index, {kParameterEnd});
      Parameter p = parse_parameter(param.content);
      for (const auto& other : parameters)
        if (other.name == p.name) fail("duplicate parameter name {:?} in tool call {:?}", p.name, call.name);
      parameters.push_back(std::move(p));
      r = read_until_stop(text, index, {kParameter, kInvokeEnd});
      if (r.content != ">\n") fail("parameter format error: expected '>\\n' but got {:?}", std::string(r.content));
    }
    // The arguments object as JSON text: names and string values quoted the Python way, others verbatim.
    call.arguments.assign(1, '{');
    for (size_t i = 0; i < parameters.size(); ++i) {
      if (i > 0) call.arguments += ", ";
      call.arguments += python_json_string(parameters[i].name);
      call.arguments += ": ";
      call.arguments += parameters[i].is_string ? python_json_string(parameters[i].value) : parameters[i].value;
    }
    call.arguments += "}";
    calls.push_back(std::move(call));
  }
  return calls;
}

}  // namespace

ParsedCompletion parse_completion(std::string_view text, bool thinking) {
  ParsedCompletion parsed;
  size_t index = 0;
  if (thinking) {
    const Read r = read_until_stop(text, index, {kThinkEnd, kToolCallsStart});
    if (r.stop != kThinkEnd) fail("invalid thinking format: missing </think>");
    parsed.reasoning_content = r.content;
  }
  Read r = read_until_stop(text, index, {kEos, kToolCallsStart});
  parsed.content = r.content;
  if (r.stop == kToolCallsStart) {
    parsed.tool_calls = parse_tool_calls(text, index);
    r = read_until_stop(text, index, {kEos});
    if (!r.content.empty()) fail("unexpected content after tool calls: {:?}", std::string(r.content));
  } else if (r.stop != kEos) {
    fail("invalid format: missing <｜end▁of▁sentence｜>");
  }
  if (index != text.size()) fail("unexpected content after <｜end▁of▁sentence｜>");
  for (const std::string_view token : {kBos, kEos, kThinkStart, kThinkEnd, kDsml}) {
    if (parsed.content.find(token) != std::string::npos || parsed.reasoning_content.find(token) != std::string::npos)
      fail("unexpected special token {} in the completion's text", token);
  }
  return parsed;
}

}  // namespace plumb::text
