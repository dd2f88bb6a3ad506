// The added tokens of a tokenizer.json ("added_tokens"): strings matched in the raw text before any
// pre-tokenization and turned into one id each. As in HF tokenizers:
// - ids are assigned the HF way when loading: a token already in the model vocabulary keeps that id, a new
//   one takes the next free id after the vocabulary (a file whose ids disagree loads with a warning);
// - matching is leftmost-longest, first with the tokens marked normalized=false, then, inside the remaining
//   text, with those marked normalized=true (the normalizer is the identity in every file plumb accepts);
// - lstrip / rstrip swallow whitespace on that side, single_word requires non-word neighbours;
// - with allow_special=false, tokens marked special are not matched: their text is encoded as plain text.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/bpe_model.h"
#include "text/regex.h"
#include "text/token_id.h"

namespace plumb::text {

struct AddedToken {
  std::string content;
  TokenId id;
  bool special, normalized, lstrip, rstrip, single_word;
};

class AddedVocabulary {
 public:
  AddedVocabulary();
  // Reads the "added_tokens" list against the model (for the HF id rule).
  static AddedVocabulary from_json(const nlohmann::json& list, const BpeModel& model, std::string_view origin);

  // A stretch of text: an added token (id >= 0) or text between tokens (id -1).
  struct Piece {
    size_t begin, end;  // byte offsets into the text given to split()
    TokenId id;
  };

  // Cuts text into non-empty pieces, in order; `scratch` is work space.
  void split(std::string_view text, bool allow_special, std::vector<Piece>& out, std::vector<Piece>& scratch) const;

  const AddedToken* by_id(TokenId id) const;
  const AddedToken* by_content(std::string_view content) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // A byte trie over token contents; node 0 is the root.
  struct Trie {
    struct Node {
      std::vector<std::pair<uint8_t, uint32_t>> children;  // sorted by byte
      int32_t token = -1;                                  // index into tokens_ ending here
    };
    std::vector<Node> nodes{1};
    bool first_byte[256] = {};
    void insert(std::string_view content, int32_t token);
    // The longest token starting at pos, as (index, length), or index -1.
    std::pair<int32_t, size_t> longest(std::string_view text, size_t pos) const;
  };

  // Finds the pieces of text with one trie (0: normalized=false tokens, 1: normalized=true ones).
  void find(std::string_view text, int trie, bool allow_special, std::vector<Piece>& out) const;
  bool is_word_char_before(std::string_view text, size_t pos) const;
  bool is_word_char_at(std::string_view text, size_t pos) const;

  std::vector<AddedToken> tokens_;
  std::unordered_map<std::string, size_t> by_content_;
  std::unordered_map<TokenId, size_t> by_id_;
  Trie trie_, normalized_trie_;
  Regex word_char_;  // HF's \w for single_word (Rust regex: Alphabetic, M, Nd, Pc, Join_Control)
};

}  // namespace plumb::text
