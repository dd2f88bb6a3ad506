// Incremental lossy UTF-8 over token bytes (see stream_detokenizer.h).
#include "text/stream_detokenizer.h"

#include "text/utf8.h"

namespace plumb::text {

StreamDetokenizer::StreamDetokenizer(const Tokenizer& tokenizer, bool skip_special)
    : tokenizer_(&tokenizer), skip_special_(skip_special) {}

std::string StreamDetokenizer::push(TokenId id) {
  const std::string_view bytes = tokenizer_->token_bytes(id);
  if (skip_special_ && tokenizer_->is_special(id)) return {};
  if (!tokenizer_->decodes_by_concatenation()) {
    // Such decoders join whole token strings with spaces; every piece is complete text already.
    std::string out = any_emitted_ ? " " : "";
    any_emitted_ = true;
    out += tokenizer_->token_text(id);
    return out;
  }
  pending_ += bytes;
  std::string out;
  size_t pos = 0;
  while (pos < pending_.size()) {
    const Utf8Step step = utf8_step(pending_, pos);
    if (step.kind == Utf8Step::incomplete) break;
    if (step.kind == Utf8Step::complete) {
      out.append(pending_, pos, step.length);
    } else {
      out += kReplacementChar;
    }
    pos += step.length;
  }
  pending_.erase(0, pos);
  return out;
}

std::string StreamDetokenizer::finish() {
  std::string out;
  utf8_append_lossy(out, pending_);
  pending_.clear();
  return out;
}

}  // namespace plumb::text
