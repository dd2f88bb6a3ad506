// A ModelText for the HTTP tests, independent of any tokenizer file: token id = ASCII code (vocab 128, other
// bytes encode as '?'), the chat prompt is "<role>content\n" per message then "<assistant>" (and "<think>" when
// thinking), and a reply's reasoning ends at "</think>". It lets the transport tests (auth, limits, streaming,
// cancellation, shutdown) run on the toy model with text that is always valid UTF-8.
#pragma once

#include <memory>

#include "server/model_text.h"

namespace plumb::test {

class AsciiText : public server::ModelText {
 public:
  int32_t vocab_size() const override { return 128; }
  std::vector<int32_t> encode(std::string_view text) const override {
    std::vector<int32_t> ids;
    for (unsigned char c : text) ids.push_back(c < 128 ? int32_t(c) : int32_t('?'));
    return ids;
  }
  std::string decode(std::span<const int32_t> ids) const override {
    std::string out;
    for (int32_t id : ids) out += char(id);
    return out;
  }
  std::string token_bytes(int32_t id) const override { return std::string(1, char(id)); }
  engine::TextStreamFactory text_streams() const override {
    struct Stream : engine::TextStream {
      std::string push(int32_t id) override { return std::string(1, char(id)); }
      std::string flush() override { return {}; }
    };
    return [] { return std::make_unique<Stream>(); };
  }
  std::string render_chat(const nlohmann::ordered_json& messages, const nlohmann::ordered_json&,
                          const server::ChatPromptOptions& options) const override {
    std::string out;
    for (const auto& m : messages) out += "<" + m["role"].get<std::string>() + ">" + m["content"].get<std::string>() + "\n";
    return out + "<assistant>" + (options.thinking ? "<think>" : "");
  }
  server::ChatReply parse_reply(std::string_view text, const server::ChatPromptOptions& options) const override {
    server::ChatReply r;
    const size_t end = options.thinking ? text.find("</think>") : std::string_view::npos;
    if (!options.thinking) {
      r.content = text;
    } else if (end == std::string_view::npos) {
      r.reasoning_content = text;
    } else {
      r.reasoning_content = text.substr(0, end);
      r.content = text.substr(end + 8);
    }
    return r;
  }
  server::ReplyMarkers reply_markers() const override { return {"</think>", "<tool>"}; }
};

}  // namespace plumb::test
