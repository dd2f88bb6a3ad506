// Turns ids into text one id at a time for streaming (SSE): each push() returns only complete UTF-8, and a
// character whose bytes are spread over several tokens is held back until its last byte arrives. Bytes that
// can never form a character become U+FFFD as soon as that is certain, and finish() turns a truncated tail
// into U+FFFD, so the concatenation of every push() and finish() equals Tokenizer::decode of all the ids.
#pragma once

#include <string>

#include "text/tokenizer.h"

namespace plumb::text {

class StreamDetokenizer {
 public:
  // The tokenizer must outlive this object. With skip_special, special tokens produce no text.
  explicit StreamDetokenizer(const Tokenizer& tokenizer, bool skip_special = false);

  // Adds one id (throws plumb::Error for an id outside the vocabulary) and returns the text it completes.
  std::string push(TokenId id);

  // Ends the stream and returns what was held back (empty unless the ids end inside a character).
  std::string finish();

  // How many bytes are held back waiting for the rest of a character.
  size_t pending_bytes() const { return pending_.size(); }

 private:
  const Tokenizer* tokenizer_;
  bool skip_special_;
  bool any_emitted_ = false;  // for decoders that join tokens with spaces
  std::string pending_;
};

}  // namespace plumb::text
