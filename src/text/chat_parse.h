// Parses one DeepSeek-V4 assistant completion (the text the model wrote after the prompt, up to and
// including <｜end▁of▁sentence｜>) into reasoning_content, content and tool_calls, as the official
// parse_message_from_completion_text does:
// - thinking mode: reasoning is everything before </think>, which must be present;
// - content runs to <｜end▁of▁sentence｜> or to "\n\n<｜DSML｜tool_calls", which starts DSML tool calls:
//   <｜DSML｜invoke name="NAME"> with <｜DSML｜parameter name="KEY" string="true|false">VALUE</｜DSML｜parameter>
//   lines; arguments come back as JSON text, string="true" values JSON-quoted and the others verbatim;
// - nothing may follow the end-of-sentence, and reasoning and content must not contain the BOS, EOS,
//   <think>, </think> or ｜DSML｜ strings.
// Like the official parser it accepts only well-formed output: anything else is a plumb::Error saying what
// was wrong. Callers whose generation stopped at the EOS token append its string before parsing.
#pragma once

#include <string_view>

#include "text/chat_types.h"

namespace plumb::text {

ParsedCompletion parse_completion(std::string_view text, bool thinking);

}  // namespace plumb::text
