// ModelText for DeepSeek-V4 models, over plumb::text: the tokenizer.json BPE, the streaming detokenizer, the
// official chat encoding (OpenAI's "developer" role is a system message here; DeepSeek's own developer role is
// not reachable from the API) and the official completion parser. Model output the parser refuses (a random or
// cut-off reply) is still answered: reasoning up to </think> when thinking, the rest as content, no tool calls.
#pragma once

#include <filesystem>
#include <memory>

#include "server/model_text.h"
#include "text/tokenizer.h"

namespace plumb::server {

class Dsv4Text : public ModelText {
 public:
  explicit Dsv4Text(text::Tokenizer tokenizer);
  static std::unique_ptr<Dsv4Text> from_file(const std::filesystem::path& tokenizer_json);

  int32_t vocab_size() const override;
  std::vector<int32_t> encode(std::string_view text) const override;
  std::string decode(std::span<const int32_t> ids) const override;
  std::string token_bytes(int32_t id) const override;
  engine::TextStreamFactory text_streams() const override;
  std::string render_chat(const nlohmann::ordered_json& messages, const nlohmann::ordered_json& tools,
                          const ChatPromptOptions& options) const override;
  ChatReply parse_reply(std::string_view generated, const ChatPromptOptions& options) const override;
  ReplyMarkers reply_markers() const override;

  const text::Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  text::Tokenizer tokenizer_;
};

}  // namespace plumb::server
