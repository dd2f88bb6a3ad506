// A byte-level BPE tokenizer loaded from an HF tokenizer.json, equal to the HF tokenizers library on that
// file: added tokens, then the pre-tokenizer, then BPE (see added_vocabulary.h, pretokenizer.h,
// bpe_model.h for each stage). The normalizer must be absent or an empty Sequence; the decoder ByteLevel
// or absent; the post-processor, truncation and padding are ignored, because plumb never adds tokens
// behind the caller's back (the chat encoding writes BOS itself).
//
// Special ids are looked up by their strings (token_id("<｜end▁of▁sentence｜>")), never hard-coded.
//
// Errors: text that is not valid UTF-8 is refused with the byte offset named; decoding an id outside the
// vocabulary is refused with the id named (HF would drop it silently). A Tokenizer is immutable after
// loading and safe to use from several threads at once.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/token_id.h"

namespace plumb::text {

class Tokenizer {
 public:
  // Loads MODEL_DIR/tokenizer.json, or the file itself when given one.
  static Tokenizer from_file(const std::filesystem::path& model_dir_or_file);
  // Parses tokenizer.json text; `origin` names it in errors.
  static Tokenizer from_json(std::string_view json_text, std::string_view origin);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  // The ids of text. With allow_special, added tokens marked special (BOS, EOS, ...) are recognised in the
  // text; without it their strings are encoded as ordinary text (non-special added tokens such as <think>
  // are still recognised, as in HF's encode_special_tokens mode). No BOS is added.
  std::vector<TokenId> encode(std::string_view text, bool allow_special) const;

  // The text of ids (lossy where ids cut a character: U+FFFD, as in HF). With skip_special, tokens marked
  // special are left out.
  std::string decode(std::span<const TokenId> ids, bool skip_special = false) const;

  // The bytes one id decodes to (for byte-level files: the raw bytes, possibly part of a character).
  std::string_view token_bytes(TokenId id) const;
  // The id's string as the file writes it (byte-level alphabet for model tokens); throws for unknown ids.
  std::string_view token_text(TokenId id) const;

  // The id of an added token or vocabulary string, looked up as the file writes it.
  std::optional<TokenId> token_id(std::string_view token) const;
  // As token_id, but throws a plumb::Error naming the token when it is absent.
  TokenId require_token_id(std::string_view token) const;

  bool is_special(TokenId id) const;
  bool is_added(TokenId id) const;
  bool has_id(TokenId id) const;
  // One past the largest id.
  size_t vocab_size() const;
  // Whether decode is a plain concatenation of token_bytes (what streaming relies on).
  bool decodes_by_concatenation() const;

 private:
  struct Impl;
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace plumb::text
