// The special strings of DeepSeek-V4's chat format. The encoding writes them as text; their ids come from
// the tokenizer file (Tokenizer::token_id), never from here.
#pragma once

#include <array>
#include <string_view>
#include <utility>

namespace plumb::text {

inline constexpr std::string_view kBos = "<｜begin▁of▁sentence｜>";
inline constexpr std::string_view kEos = "<｜end▁of▁sentence｜>";
inline constexpr std::string_view kUser = "<｜User｜>";
inline constexpr std::string_view kAssistant = "<｜Assistant｜>";
inline constexpr std::string_view kLatestReminder = "<｜latest_reminder｜>";
inline constexpr std::string_view kThinkStart = "<think>";
inline constexpr std::string_view kThinkEnd = "</think>";
inline constexpr std::string_view kDsml = "｜DSML｜";

// Quick-instruction tasks and the token each appends.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kTaskTokens = {{
    {"action", "<｜action｜>"},
    {"query", "<｜query｜>"},
    {"authority", "<｜authority｜>"},
    {"domain", "<｜domain｜>"},
    {"title", "<｜title｜>"},
    {"read_url", "<｜read_url｜>"},
}};

}  // namespace plumb::text
