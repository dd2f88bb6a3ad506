// Loading the BPE vocabulary and merges, and the merge loop (see bpe_model.h).
#include "text/bpe_model.h"

#include <algorithm>

#include "base/error.h"
#include "text/byte_level.h"
#include "text/utf8.h"

namespace plumb::text {
namespace {

// HF does not cache pieces this long; neither do we (they are rare and would bloat the cache).
constexpr size_t kMaxCachedPieceBytes = 256;
constexpr size_t kMaxCacheEntries = 1 << 20;
constexpr TokenId kMaxTokenId = 1 << 24;

uint64_t pair_key(TokenId left, TokenId right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }

}  // namespace

void BpeModel::MergeTable::reserve(size_t count) {
  size_t capacity = 16;
  while (capacity < count * 2) capacity *= 2;
  entries.assign(capacity, Entry{kMissing, 0});
  mask = capacity - 1;
}

void BpeModel::MergeTable::put(TokenId left, TokenId right, uint32_t rank, TokenId new_id) {
  const uint64_t key = pair_key(left, right);
  size_t slot = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
  while (entries[slot].key != kMissing && entries[slot].key != key) slot = (slot + 1) & mask;
  // A repeated pair keeps its last rank, as when HF collects the merges into a map.
  entries[slot] = {key, (uint64_t(rank) << 32) | uint32_t(new_id)};
}

uint64_t BpeModel::MergeTable::get(TokenId left, TokenId right) const {
  const uint64_t key = pair_key(left, right);
  size_t slot = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
  while (true) {
    const Entry& e = entries[slot];
    if (e.key == key) return e.value;
    if (e.key == kMissing) return kMissing;
    slot = (slot + 1) & mask;
  }
}

BpeModel BpeModel::from_json(const nlohmann::json& model, std::string_view origin) {
  if (!model.is_object()) fail("{}: \"model\" is not an object", origin);
  const std::string type = model.value("type", "BPE");
  if (type != "BPE") fail("{}: model type {:?} is not supported (plumb reads BPE models)", origin, type);
  auto null_or = [&](const char* key, auto fallback) {
    const auto it = model.find(key);
    return it == model.end() || it->is_null() ? fallback : it->get<decltype(fallback)>();
  };
  if (null_or("dropout", 0.0) != 0.0) fail("{}: BPE dropout is not supported (encoding must be deterministic)", origin);
  if (null_or("byte_fallback", false)) fail("{}: BPE byte_fallback is not supported", origin);
  if (!null_or("continuing_subword_prefix", std::string()).empty() ||
      !null_or("end_of_word_suffix", std::string()).empty()) {
    fail("{}: BPE continuing_subword_prefix / end_of_word_suffix are not supported", origin);
  }

  BpeModel m;
  m.fuse_unk_ = null_or("fuse_unk", false);
  m.ignore_merges_ = null_or("ignore_merges", false);
  const auto vocab = model.find("vocab");
  if (vocab == model.end() || !vocab->is_object()) fail("{}: model.vocab is missing or not an object", origin);
  m.vocab_.reserve(vocab->size());
  TokenId max_id = -1;
  for (const auto& [token, id_json] : vocab->items()) {
    if (!id_json.is_number_integer()) fail("{}: model.vocab[{:?}] is not an integer id", origin, token);
    const auto id = id_json.get<int64_t>();
    if (id < 0 || id >= kMaxTokenId) fail("{}: model.vocab[{:?}] = {} is out of range", origin, token, id);
    m.vocab_[token] = TokenId(id);
    max_id = std::max(max_id, TokenId(id));
  }
  m.tokens_.assign(size_t(max_id + 1), std::string());
  m.present_.assign(size_t(max_id + 1), false);
  for (const auto& [token, id] : m.vocab_) {
    m.tokens_[id] = token;
    m.present_[id] = true;
  }

  const auto merges = model.find("merges");
  if (merges == model.end() || !merges->is_array()) fail("{}: model.merges is missing or not an array", origin);
  m.merges_.reserve(merges->size());
  auto lookup = [&](const std::string& token, size_t rank) {
    const auto it = m.vocab_.find(token);
    if (it == m.vocab_.end()) fail("{}: merge {} uses {:?}, which is not in the vocabulary", origin, rank, token);
    return it->second;
  };
  for (size_t rank = 0; rank < merges->size(); ++rank) {
    const auto& entry = (*merges)[rank];
    std::string left, right;
    if (entry.is_string()) {
      // The older form "left right": exactly one space.
      const std::string& text = entry.get_ref<const std::string&>();
      const size_t space = text.find(' ');
      if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
        fail("{}: merge {} ({:?}) is not two tokens separated by one space", origin, rank, text);
      left = text.substr(0, space);
      right = text.substr(space + 1);
    } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() && entry[1].is_string()) {
      left = entry[0].get<std::string>();
      right = entry[1].get<std::string>();
    } else {
      fail("{}: merge {} is neither \"a b\" nor [\"a\", \"b\"]", origin, rank);
    }
    m.merges_.put(lookup(left, rank), lookup(right, rank), uint32_t(rank), lookup(left + right, rank));
  }

  for (int b = 0; b < 256; ++b) {
    const auto it = m.vocab_.find(byte_level_utf8(uint8_t(b)));
    m.byte_symbol_[b] = it == m.vocab_.end() ? -1 : it->second;
  }
  const std::string unk = null_or("unk_token", std::string());
  if (!unk.empty()) {
    const auto it = m.vocab_.find(unk);
    if (it == m.vocab_.end()) fail("{}: unk_token {:?} is not in the vocabulary", origin, unk);
    m.unk_ = it->second;
  }
  return m;
}

std::optional<TokenId> BpeModel::token_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* BpeModel::token(TokenId id) const {
  if (id < 0 || size_t(id) >= tokens_.size() || !present_[id]) return nullptr;
  return &tokens_[id];
}

void BpeModel::tokenize(std::string_view piece, bool byte_level, BpeCache& cache, std::vector<TokenId>& out) const {
  if (piece.empty()) return;
  const bool cacheable = piece.size() < kMaxCachedPieceBytes;
  uint64_t hash = 0;
  if (cacheable) {
    hash = PieceCache::hash(piece);
    bool found;
    const auto ids = cache.pieces.find(piece, hash, found);
    if (found) {
      out.insert(out.end(), ids.begin(), ids.end());
      return;
    }
  }
  const size_t start = out.size();
  merge(piece, byte_level, cache, out);
  if (cacheable && cache.pieces.size() < kMaxCacheEntries)
    cache.pieces.insert(piece, hash, std::span<const TokenId>(out.data() + start, out.size() - start));
}

void BpeModel::initial_symbols(std::string_view piece, bool byte_level, BpeCache& cache) const {
  auto& symbols = cache.symbols;
  symbols.clear();
  TokenId pending_unk = -1;  // an unknown run waiting to be fused or flushed
  uint32_t pending_length = 0;
  auto push = [&](TokenId id, uint32_t length) {
    const auto index = int32_t(symbols.size());
    symbols.push_back({id, index - 1, index + 1, length});
  };
  auto add = [&](std::optional<TokenId> id, uint32_t length) {
    if (id) {
      if (pending_unk >= 0) push(pending_unk, pending_length);
      pending_unk = -1;
      push(*id, length);
    } else if (unk_) {
      if (pending_unk >= 0 && fuse_unk_) {
        pending_length += length;
      } else {
        if (pending_unk >= 0) push(pending_unk, pending_length);
        pending_unk = *unk_;
        pending_length = length;
      }
    }
  };
  if (byte_level) {
    for (unsigned char b : piece) {
      const TokenId id = byte_symbol_[b];
      add(id >= 0 ? std::optional<TokenId>(id) : std::nullopt, 1);
    }
  } else {
    size_t pos = 0;
    while (pos < piece.size()) {
      const size_t begin = pos;
      if (!utf8_next(piece, pos)) fail("BPE: piece is not valid UTF-8");
      const std::string_view ch = piece.substr(begin, pos - begin);
      add(token_id(ch), uint32_t(ch.size()));
    }
  }
  if (pending_unk >= 0) push(pending_unk, pending_length);
  if (!symbols.empty()) symbols.back().next = -1;
}

void BpeModel::merge(std::string_view piece, bool byte_level, BpeCache& cache, std::vector<TokenId>& out) const {
  if (ignore_merges_) {
    const auto whole = byte_level ? token_id(byte_level_encode(piece)) : token_id(piece);
    if (whole) {
      out.push_back(*whole);
      return;
    }
  }
  initial_symbols(piece, byte_level, cache);
  auto& symbols = cache.symbols;
  auto& heap = cache.heap;
  heap.clear();
  // A min-heap on (rank, position): the lowest-ranked pair first, the leftmost among equals.
  const auto later = [](const BpeCache::Candidate& a, const BpeCache::Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  };
  auto push_pair = [&](int32_t pos) {
    const int32_t next = symbols[pos].next;
    if (next < 0) return;
    const uint64_t merge = merges_.get(symbols[pos].id, symbols[next].id);
    if (merge == MergeTable::kMissing) return;
    heap.push_back({uint32_t(merge >> 32), pos, TokenId(uint32_t(merge))});
    std::push_heap(heap.begin(), heap.end(), later);
  };
  for (int32_t i = 0; i + 1 < int32_t(symbols.size()); ++i) push_pair(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const BpeCache::Candidate top = heap.back();
    heap.pop_back();
    BpeCache::Symbol& left = symbols[top.pos];
    if (left.length == 0 || left.next < 0) continue;
    const BpeCache::Symbol right = symbols[left.next];
    // Entries go stale when a neighbour merged first; only a pair that still yields new_id is current.
    const uint64_t merge = merges_.get(left.id, right.id);
    if (merge == MergeTable::kMissing || TokenId(uint32_t(merge)) != top.new_id) continue;
    symbols[left.next].length = 0;
    left.id = top.new_id;
    left.length += right.length;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = top.pos;
    if (left.prev >= 0) push_pair(left.prev);
    push_pair(top.pos);
  }
  for (const auto& s : symbols)
    if (s.length != 0) out.push_back(s.id);
}

}  // namespace plumb::text
