#include "server/dsv4_text.h"

#include <fmt/format.h>

#include "base/error.h"
#include "text/chat_encoding.h"
#include "text/chat_json.h"
#include "text/chat_parse.h"
#include "text/chat_tokens.h"
#include "text/stream_detokenizer.h"

namespace plumb::server {
namespace {

class DetokenizerStream : public engine::TextStream {
 public:
  explicit DetokenizerStream(const text::Tokenizer& tokenizer) : detok_(tokenizer) {}
  std::string push(int32_t id) override { return detok_.push(id); }
  std::string flush() override { return detok_.finish(); }

 private:
  text::StreamDetokenizer detok_;
};

}  // namespace

Dsv4Text::Dsv4Text(text::Tokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}

std::unique_ptr<Dsv4Text> Dsv4Text::from_file(const std::filesystem::path& tokenizer_json) {
  return std::make_unique<Dsv4Text>(text::Tokenizer::from_file(tokenizer_json));
}

int32_t Dsv4Text::vocab_size() const { return int32_t(tokenizer_.vocab_size()); }

std::vector<int32_t> Dsv4Text::encode(std::string_view text) const { return tokenizer_.encode(text, true); }

std::string Dsv4Text::decode(std::span<const int32_t> ids) const { return tokenizer_.decode(ids, false); }

std::string Dsv4Text::token_bytes(int32_t id) const { return std::string(tokenizer_.token_bytes(id)); }

engine::TextStreamFactory Dsv4Text::text_streams() const {
  return [this] { return std::make_unique<DetokenizerStream>(tokenizer_); };
}

std::string Dsv4Text::render_chat(const nlohmann::ordered_json& messages, const nlohmann::ordered_json& tools,
                                  const ChatPromptOptions& options) const {
  nlohmann::ordered_json mapped = messages;
  for (auto& m : mapped)
    if (m["role"] == "developer") m["role"] = "system";
  text::ChatRequestOptions opts;
  opts.thinking = options.thinking;
  // The encoding knows "max" (which adds a paragraph) and "high" (its default, the same prompt as none).
  if (options.thinking && options.reasoning_effort == "max") opts.reasoning_effort = "max";
  if (!tools.empty()) opts.tools = tools;
  return text::render_chat_prompt(text::chat_messages_from_json(mapped), opts);
}

ChatReply Dsv4Text::parse_reply(std::string_view generated, const ChatPromptOptions& options) const {
  ChatReply reply;
  // The engine leaves the end-of-sentence token out of the text; the parser expects the turn to end with it.
  try {
    auto parsed = text::parse_completion(std::string(generated) + std::string(text::kEos), options.thinking);
    reply.reasoning_content = std::move(parsed.reasoning_content);
    reply.content = std::move(parsed.content);
    for (auto& call : parsed.tool_calls) reply.tool_calls.push_back({std::move(call.name), std::move(call.arguments)});
    return reply;
  } catch (const plumb::Error&) {
  }
  const size_t end = options.thinking ? generated.find(text::kThinkEnd) : std::string_view::npos;
  if (!options.thinking) {
    reply.content = generated;
  } else if (end == std::string_view::npos) {
    reply.reasoning_content = generated;
  } else {
    reply.reasoning_content = generated.substr(0, end);
    reply.content = generated.substr(end + text::kThinkEnd.size());
  }
  return reply;
}

ReplyMarkers Dsv4Text::reply_markers() const {
  return {std::string(text::kThinkEnd), fmt::format("<{}tool_calls", text::kDsml)};
}

}  // namespace plumb::server
