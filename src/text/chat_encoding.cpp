// DeepSeek-V4 prompt rendering, following the official encoding_dsv4.py step by step: merge tool results
// into user turns, order them by call, drop old reasoning, then render each message and the transition
// that follows it (see chat_encoding.h for the rules in prose).
#include "text/chat_encoding.h"

#include <algorithm>
#include <map>

#include "base/error.h"
#include "text/chat_tokens.h"
#include "text/python_json.h"

namespace plumb::text {
namespace {

using ordered_json = nlohmann::ordered_json;

constexpr std::string_view kReasoningEffortMax =
    "Reasoning Effort: Absolute maximum with no shortcuts permitted.\n"
    "You MUST be very thorough in your thinking and comprehensively decompose the problem to resolve the root "
    "cause, rigorously stress-testing your logic against all potential paths, edge cases, and adversarial "
    "scenarios.\n"
    "Explicitly write out your entire deliberation process, documenting every intermediate step, considered "
    "alternative, and rejected hypothesis to ensure absolutely no assumption is left unchecked.\n\n";

constexpr std::string_view kToolsIntro =
    "## Tools\n\n"
    "You have access to a set of tools to help answer the user's question. You can invoke tools by writing a "
    "\"<｜DSML｜tool_calls>\" block like the following:\n\n"
    "<｜DSML｜tool_calls>\n"
    "<｜DSML｜invoke name=\"$TOOL_NAME\">\n"
    "<｜DSML｜parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE</｜DSML｜parameter>\n"
    "...\n"
    "</｜DSML｜invoke>\n"
    "<｜DSML｜invoke name=\"$TOOL_NAME2\">\n"
    "...\n"
    "</｜DSML｜invoke>\n"
    "</｜DSML｜tool_calls>\n\n"
    "String parameters should be specified as is and set `string=\"true\"`. For all other types (numbers, "
    "booleans, arrays, objects), pass the value in JSON format and set `string=\"false\"`.\n\n"
    "If thinking_mode is enabled (triggered by <think>), you MUST output your complete reasoning inside "
    "<think>...</think> BEFORE any tool calls or final response.\n\n"
    "Otherwise, output directly after </think> with tool calls or final response.\n\n"
    "### Available Tool Schemas\n\n";
constexpr std::string_view kToolsOutro =
    "\n\nYou MUST strictly follow the above defined tool name and parameter schemas to invoke tool calls.\n";

// Python truthiness, which decides whether the official code renders an optional field.
bool truthy(const ordered_json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_string() || v.is_array() || v.is_object()) return !v.empty();
  return true;
}

// A user turn's parts after tool results are merged in.
struct Block {
  bool tool_result;
  std::string text;         // text, or the tool result's content
  std::string tool_use_id;  // tool_result: the call it answers
};

struct Turn {
  ChatMessage message;
  bool has_blocks = false;  // user turns: rendered from blocks
  std::vector<Block> blocks;
};

bool is_user_like(const std::string& role) { return role == "user" || role == "developer"; }

int last_user_index(const std::vector<Turn>& turns) {
  for (int i = int(turns.size()) - 1; i >= 0; --i)
    if (is_user_like(turns[i].message.role)) return i;
  return -1;
}

// Tool messages become tool_result blocks of a user turn; a user message following a user turn without a
// task joins it.
std::vector<Turn> merge_tool_messages(const std::vector<ChatMessage>& messages) {
  std::vector<Turn> merged;
  for (const ChatMessage& m : messages) {
    const bool after_user_blocks = !merged.empty() && merged.back().message.role == "user" && merged.back().has_blocks;
    if (m.role == "tool") {
      Block block{true, m.content, m.tool_call_id};
      if (after_user_blocks) {
        merged.back().blocks.push_back(std::move(block));
      } else {
        Turn turn;
        turn.message.role = "user";
        turn.has_blocks = true;
        turn.blocks.push_back(std::move(block));
        merged.push_back(std::move(turn));
      }
    } else if (m.role == "user") {
      Block block{false, m.content, ""};
      if (after_user_blocks && !merged.back().message.task) {
        merged.back().blocks.push_back(std::move(block));
      } else {
        // Only these fields of a user message survive the merge.
        Turn turn;
        turn.message.role = "user";
        turn.message.content = m.content;
        turn.message.task = m.task;
        turn.message.wo_eos = m.wo_eos;
        turn.has_blocks = true;
        turn.blocks.push_back(std::move(block));
        merged.push_back(std::move(turn));
      }
    } else {
      Turn turn;
      turn.message = m;
      merged.push_back(std::move(turn));
    }
  }
  return merged;
}

// Tool results inside a user turn follow the order of the calls of the latest assistant turn with calls.
void sort_tool_results_by_call_order(std::vector<Turn>& turns) {
  std::map<std::string, int> call_order;
  for (Turn& turn : turns) {
    if (turn.message.role == "assistant" && !turn.message.tool_calls.empty()) {
      call_order.clear();
      for (size_t i = 0; i < turn.message.tool_calls.size(); ++i)
        if (!turn.message.tool_calls[i].id.empty()) call_order[turn.message.tool_calls[i].id] = int(i);
    } else if (turn.message.role == "user" && turn.has_blocks) {
      std::vector<Block> results;
      for (const Block& b : turn.blocks)
        if (b.tool_result) results.push_back(b);
      if (results.size() < 2 || call_order.empty()) continue;
      auto rank = [&](const Block& b) {
        const auto it = call_order.find(b.tool_use_id);
        return it == call_order.end() ? 0 : it->second;
      };
      std::stable_sort(results.begin(), results.end(), [&](const Block& a, const Block& b) { return rank(a) < rank(b); });
      size_t next = 0;
      for (Block& b : turn.blocks)
        if (b.tool_result) b = results[next++];
    }
  }
}

// Before the last user turn: assistant turns lose their reasoning and developer turns are dropped.
std::vector<Turn> drop_thinking(std::vector<Turn> turns) {
  const int last_user = last_user_index(turns);
  std::vector<Turn> kept;
  for (int i = 0; i < int(turns.size()); ++i) {
    const std::string& role = turns[i].message.role;
    if (role == "user" || role == "system" || role == "tool" || role == "latest_reminder" || i >= last_user) {
      kept.push_back(std::move(turns[i]));
    } else if (role == "assistant") {
      turns[i].message.reasoning_content.clear();
      kept.push_back(std::move(turns[i]));
    }
  }
  return kept;
}

std::string render_tools(const ordered_json& tools) {
  std::string schemas;
  for (size_t i = 0; i < tools.size(); ++i) {
    if (!tools[i].is_object() || !tools[i].contains("function"))
      fail("chat encoding: tools[{}] is not an OpenAI-format tool (no \"function\")", i);
    if (i > 0) schemas += '\n';
    schemas += python_json_dumps(tools[i]["function"]);
  }
  return std::string(kToolsIntro) + schemas + std::string(kToolsOutro);
}

std::string render_response_format(const ordered_json& format) {
  return "## Response Format:\n\nYou MUST strictly adhere to the following schema to reply:\n" +
         python_json_dumps(format);
}

// One parameter line per argument: strings as they are, anything else as JSON.
std::string render_dsml_arguments(const ChatToolCall& call) {
  ordered_json arguments;
  try {
    arguments = ordered_json::parse(call.arguments);
  } catch (const ordered_json::parse_error&) {
    // The official encoder keeps unparseable arguments whole, as one string parameter.
    arguments = ordered_json{{"arguments", call.arguments}};
  }
  if (!arguments.is_object())
    fail("chat encoding: the arguments of tool call {:?} are JSON but not an object", call.name);
  std::string out;
  bool first = true;
  for (const auto& [key, value] : arguments.items()) {
    if (!first) out += '\n';
    first = false;
    const bool is_string = value.is_string();
    out += "<" + std::string(kDsml) + "parameter name=\"" + key + "\" string=\"" + (is_string ? "true" : "false") +
           "\">" + (is_string ? value.get<std::string>() : python_json_dumps(value)) + "</" + std::string(kDsml) +
           "parameter>";
  }
  return out;
}

std::string render_user_blocks(const Turn& turn) {
  std::string out;
  for (size_t i = 0; i < turn.blocks.size(); ++i) {
    if (i > 0) out += "\n\n";
    const Block& b = turn.blocks[i];
    out += b.tool_result ? "<tool_result>" + b.text + "</tool_result>" : b.text;
  }
  return out;
}

std::string_view task_token(const std::string& task) {
  for (const auto& [name, token] : kTaskTokens)
    if (name == task) return token;
  fail("chat encoding: unknown task {:?} (valid: action, query, authority, domain, title, read_url)", task);
}

struct RenderSettings {
  bool thinking;
  bool drop_thinking;
  bool effort_max;
};

std::string render_turn(int index, const std::vector<Turn>& turns, const RenderSettings& s) {
  const Turn& turn = turns[index];
  const ChatMessage& m = turn.message;
  const int last_user = last_user_index(turns);
  std::string prompt;
  if (index == 0 && s.thinking && s.effort_max) prompt += kReasoningEffortMax;

  if (m.role == "system") {
    prompt += m.content;
    if (truthy(m.tools)) prompt += "\n\n" + render_tools(m.tools);
    if (truthy(m.response_format)) prompt += "\n\n" + render_response_format(m.response_format);
  } else if (m.role == "developer") {
    if (m.content.empty()) fail("chat encoding: a developer message needs content");
    prompt += std::string(kUser) + m.content;
    if (truthy(m.tools)) prompt += "\n\n" + render_tools(m.tools);
    if (truthy(m.response_format)) prompt += "\n\n" + render_response_format(m.response_format);
  } else if (m.role == "user") {
    prompt += kUser;
    prompt += turn.has_blocks ? render_user_blocks(turn) : m.content;
  } else if (m.role == "latest_reminder") {
    prompt += std::string(kLatestReminder) + m.content;
  } else if (m.role == "assistant") {
    const bool previous_has_task = index > 0 && turns[index - 1].message.task.has_value();
    if (s.thinking && !previous_has_task && (!s.drop_thinking || index > last_user))
      prompt += m.reasoning_content + std::string(kThinkEnd);
    prompt += m.content;
    prompt += render_dsml_tool_calls(m.tool_calls);
    if (!m.wo_eos) prompt += kEos;
  } else {
    fail("chat encoding: unknown role {:?}", m.role);
  }

  // What follows a message: nothing when another non-assistant turn comes next.
  if (index + 1 < int(turns.size())) {
    const std::string& next = turns[index + 1].message.role;
    if (next != "assistant" && next != "latest_reminder") return prompt;
  }
  if (m.task) {
    const std::string_view token = task_token(*m.task);
    if (*m.task != "action") {
      prompt += token;
    } else {
      prompt += std::string(kAssistant) + std::string(s.thinking ? kThinkStart : kThinkEnd) + std::string(token);
    }
  } else if (is_user_like(m.role)) {
    prompt += kAssistant;
    prompt += s.thinking && (!s.drop_thinking || index >= last_user) ? kThinkStart : kThinkEnd;
  }
  return prompt;
}

// Request-level tools and response_format go on the first system message, inserted when there is none.
std::vector<ChatMessage> attach_request_fields(const std::vector<ChatMessage>& messages,
                                               const ChatRequestOptions& options) {
  std::vector<ChatMessage> out = messages;
  if (!truthy(options.tools) && !truthy(options.response_format)) return out;
  auto system = std::find_if(out.begin(), out.end(), [](const ChatMessage& m) { return m.role == "system"; });
  if (system == out.end()) {
    ChatMessage empty;
    empty.role = "system";
    system = out.insert(out.begin(), std::move(empty));
  }
  if (truthy(options.tools)) {
    if (truthy(system->tools)) fail("chat encoding: tools are given both on the request and on the system message");
    system->tools = options.tools;
  }
  if (truthy(options.response_format)) {
    if (truthy(system->response_format))
      fail("chat encoding: response_format is given both on the request and on the system message");
    system->response_format = options.response_format;
  }
  return out;
}

}  // namespace

std::string render_dsml_tool_calls(const std::vector<ChatToolCall>& calls) {
  if (calls.empty()) return "";
  const std::string dsml(kDsml);
  std::string out = "\n\n<" + dsml + "tool_calls>\n";
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i > 0) out += '\n';
    out += "<" + dsml + "invoke name=\"" + calls[i].name + "\">\n" + render_dsml_arguments(calls[i]) + "\n</" + dsml +
           "invoke>";
  }
  out += "\n</" + dsml + "tool_calls>";
  return out;
}

std::string render_chat_prompt(const std::vector<ChatMessage>& messages, const ChatRequestOptions& options) {
  static const std::vector<std::string> roles = {"system", "user", "assistant", "tool", "developer", "latest_reminder"};
  for (const ChatMessage& m : messages)
    if (std::find(roles.begin(), roles.end(), m.role) == roles.end())
      fail("chat encoding: unknown role {:?} (valid: system, user, assistant, tool, developer, latest_reminder)", m.role);
  if (options.reasoning_effort && *options.reasoning_effort != "max" && *options.reasoning_effort != "high")
    fail("chat encoding: reasoning_effort {:?} is not one of max, high", *options.reasoning_effort);

  std::vector<Turn> turns = merge_tool_messages(attach_request_fields(messages, options));
  sort_tool_results_by_call_order(turns);
  const bool any_tools = std::any_of(turns.begin(), turns.end(), [](const Turn& t) { return truthy(t.message.tools); });
  RenderSettings settings{options.thinking, options.drop_thinking && !any_tools,
                          options.reasoning_effort && *options.reasoning_effort == "max"};
  if (settings.thinking && settings.drop_thinking) turns = drop_thinking(std::move(turns));

  std::string prompt = options.add_bos ? std::string(kBos) : std::string();
  for (int i = 0; i < int(turns.size()); ++i) prompt += render_turn(i, turns, settings);
  return prompt;
}

}  // namespace plumb::text
