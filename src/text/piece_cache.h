// Remembers the ids of pieces already tokenized during one encode call: an open-addressing table whose keys
// and values live in two flat arrays (no allocation per entry), because real text repeats its words and
// the lookup is the hottest step of encoding.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/token_id.h"

namespace plumb::text {

class PieceCache {
 public:
  // The cached ids of piece, or an empty span with found=false.
  std::span<const TokenId> find(std::string_view piece, uint64_t hash, bool& found) const;
  void insert(std::string_view piece, uint64_t hash, std::span<const TokenId> ids);
  size_t size() const { return used_; }

  static uint64_t hash(std::string_view piece);

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t key_offset = 0, key_length = 0;
    uint32_t ids_offset = 0, ids_length = 0;
    bool used = false;
  };
  void grow();

  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::string keys_;          // the cached pieces, back to back
  std::vector<TokenId> ids_;  // their ids, back to back
};

}  // namespace plumb::text
