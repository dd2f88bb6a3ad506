// JSON text exactly as Python's json.dumps(value, ensure_ascii=False) writes it with default separators
// (", " and ": "), keys in their given order, floats as Python's repr, NaN/Infinity as Python spells them.
// DeepSeek-V4's official chat encoding embeds tool schemas and arguments this way, so plumb must too to
// render byte-identical prompts. Values are nlohmann::ordered_json so that key order survives parsing.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace plumb::text {

std::string python_json_dumps(const nlohmann::ordered_json& value);

// One string as a JSON string literal, the same way.
std::string python_json_string(std::string_view text);

}  // namespace plumb::text
