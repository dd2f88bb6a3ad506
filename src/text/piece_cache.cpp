// Linear probing over a power-of-two table kept at most half full (see piece_cache.h).
#include "text/piece_cache.h"

#include <cstring>

namespace plumb::text {
namespace {

constexpr uint64_t kMix = 0x9E3779B97F4A7C15ull;

}  // namespace

uint64_t PieceCache::hash(std::string_view piece) {
  uint64_t h = piece.size() * kMix;
  size_t i = 0;
  for (; i + 8 <= piece.size(); i += 8) {
    uint64_t chunk;
    std::memcpy(&chunk, piece.data() + i, 8);
    h = (h ^ chunk) * kMix;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, piece.data() + i, piece.size() - i);
  h = (h ^ tail) * kMix;
  return h ^ (h >> 32);
}

std::span<const TokenId> PieceCache::find(std::string_view piece, uint64_t hash, bool& found) const {
  found = false;
  if (slots_.empty()) return {};
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (!s.used) return {};
    if (s.hash == hash && s.key_length == piece.size() &&
        std::memcmp(keys_.data() + s.key_offset, piece.data(), piece.size()) == 0) {
      found = true;
      return {ids_.data() + s.ids_offset, s.ids_length};
    }
  }
}

void PieceCache::insert(std::string_view piece, uint64_t hash, std::span<const TokenId> ids) {
  if ((used_ + 1) * 2 > slots_.size()) grow();
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].used) i = (i + 1) & mask;
  slots_[i] = {hash, uint32_t(keys_.size()), uint32_t(piece.size()), uint32_t(ids_.size()), uint32_t(ids.size()), true};
  keys_.append(piece);
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  ++used_;
}

void PieceCache::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.used) continue;
    size_t i = s.hash & mask;
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace plumb::text
