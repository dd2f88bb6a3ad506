// The BPE model of a tokenizer.json ("model": {"type": "BPE", ...}): the vocabulary, the ranked merges, and
// the merge loop that turns one pre-tokenized piece into ids. The loop follows HF tokenizers exactly: start
// from one symbol per character (per byte for byte-level pieces), then repeatedly apply the adjacent pair
// with the lowest merge rank, leftmost first. Characters missing from the vocabulary become the unk token
// when there is one (fused when fuse_unk) and are dropped otherwise, as in HF. ignore_merges takes a whole
// piece found in the vocabulary as one token. Dropout, byte_fallback, continuing_subword_prefix and
// end_of_word_suffix are refused at load time (no byte-level file uses them).
//
// Results are cached per piece in a BpeCache the caller owns (one per encode call), so the model itself is
// immutable and thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/piece_cache.h"
#include "text/token_id.h"

namespace plumb::text {

// Remembered results per piece (keyed by the piece's raw bytes) plus the merge loop's work arrays.
struct BpeCache {
  PieceCache pieces;

  struct Symbol {
    TokenId id;
    int32_t prev, next;
    uint32_t length;  // bytes; 0 once merged into its left neighbour
  };
  struct Candidate {
    uint32_t rank;
    int32_t pos;
    TokenId new_id;
  };
  std::vector<Symbol> symbols;
  std::vector<Candidate> heap;
};

class BpeModel {
 public:
  // Reads the "model" object of a tokenizer.json; `origin` names the file in errors.
  static BpeModel from_json(const nlohmann::json& model, std::string_view origin);

  // Appends the ids of one piece. With byte_level the piece is raw bytes, each byte standing for its
  // byte-level character; otherwise the piece is text whose characters are looked up as they are.
  void tokenize(std::string_view piece, bool byte_level, BpeCache& cache, std::vector<TokenId>& out) const;

  std::optional<TokenId> token_id(std::string_view token) const;
  // The vocabulary string of an id, or nullptr when the id is not in the vocabulary.
  const std::string* token(TokenId id) const;
  size_t vocab_entries() const { return vocab_.size(); }
  TokenId max_id() const { return TokenId(tokens_.size()) - 1; }

 private:
  // Merges keyed by the (left, right) id pair in an open-addressing table: the hot lookup of the loop. Key
  // and value sit side by side so that a probe touches one cache line.
  struct MergeTable {
    struct Entry {
      uint64_t key;    // left << 32 | right, or kMissing when free
      uint64_t value;  // rank << 32 | new id
    };
    std::vector<Entry> entries;
    uint64_t mask = 0;
    void reserve(size_t count);
    void put(TokenId left, TokenId right, uint32_t rank, TokenId new_id);
    // rank << 32 | new id, or kMissing.
    uint64_t get(TokenId left, TokenId right) const;
    static constexpr uint64_t kMissing = ~0ull;
  };
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  void merge(std::string_view piece, bool byte_level, BpeCache& cache, std::vector<TokenId>& out) const;
  void initial_symbols(std::string_view piece, bool byte_level, BpeCache& cache) const;

  std::unordered_map<std::string, TokenId, StringHash, std::equal_to<>> vocab_;
  std::vector<std::string> tokens_;  // by id
  std::vector<bool> present_;        // by id: whether the id is in the vocabulary
  MergeTable merges_;
  TokenId byte_symbol_[256];  // vocabulary id of each byte's byte-level character, or -1
  std::optional<TokenId> unk_;
  bool fuse_unk_ = false;
  bool ignore_merges_ = false;
};

}  // namespace plumb::text
