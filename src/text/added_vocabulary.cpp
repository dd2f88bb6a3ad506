// Loading added tokens with HF's id rule, and leftmost-longest matching through a byte trie.
#include "text/added_vocabulary.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "base/error.h"
#include "text/utf8.h"

namespace plumb::text {
namespace {

// Rust's char::is_whitespace / regex \s (the White_Space property), used by lstrip and rstrip.
bool is_white_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// The start of the character that ends at pos (pos > 0, text valid UTF-8).
size_t previous_char(std::string_view text, size_t pos) {
  --pos;
  while (pos > 0 && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

// Where the run of whitespace that ends text[..end] begins.
size_t trailing_space_start(std::string_view text, size_t end) {
  size_t start = end;
  while (start > 0) {
    size_t at = previous_char(text, start);
    size_t next = at;
    const auto c = utf8_next(text, next);
    if (!c || !is_white_space(*c)) break;
    start = at;
  }
  return start;
}

// The length of the run of whitespace that starts at pos.
size_t leading_space_length(std::string_view text, size_t pos) {
  size_t end = pos;
  while (end < text.size()) {
    size_t next = end;
    const auto c = utf8_next(text, next);
    if (!c || !is_white_space(*c)) break;
    end = next;
  }
  return end - pos;
}

}  // namespace

AddedVocabulary::AddedVocabulary()
    : word_char_(R"([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}])", "the added-token word test") {}

void AddedVocabulary::Trie::insert(std::string_view content, int32_t token) {
  uint32_t node = 0;
  for (unsigned char b : content) {
    auto& children = nodes[node].children;
    auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(b, uint32_t(0)),
                               [](const auto& x, const auto& y) { return x.first < y.first; });
    if (it == children.end() || it->first != b) {
      const auto child = uint32_t(nodes.size());
      it = children.insert(it, {b, child});
      nodes.emplace_back();
      node = child;
    } else {
      node = it->second;
    }
  }
  nodes[node].token = token;
  first_byte[static_cast<unsigned char>(content[0])] = true;
}

std::pair<int32_t, size_t> AddedVocabulary::Trie::longest(std::string_view text, size_t pos) const {
  int32_t best = -1;
  size_t best_length = 0;
  uint32_t node = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    const auto& children = nodes[node].children;
    const auto b = static_cast<unsigned char>(text[i]);
    const auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(b, uint32_t(0)),
                                     [](const auto& x, const auto& y) { return x.first < y.first; });
    if (it == children.end() || it->first != b) break;
    node = it->second;
    if (nodes[node].token >= 0) {
      best = nodes[node].token;
      best_length = i + 1 - pos;
    }
  }
  return {best, best_length};
}

AddedVocabulary AddedVocabulary::from_json(const nlohmann::json& list, const BpeModel& model, std::string_view origin) {
  AddedVocabulary v;
  if (list.is_null()) return v;
  if (!list.is_array()) fail("{}: \"added_tokens\" is not a list", origin);
  std::map<TokenId, AddedToken> by_id;
  std::unordered_map<std::string, TokenId> ids;
  TokenId next_id = TokenId(model.vocab_entries());
  for (const auto& entry : list) {
    AddedToken t;
    t.content = entry.at("content").get<std::string>();
    utf8_require_valid(t.content, fmt::format("{}: added token", origin));
    t.special = entry.value("special", false);
    t.normalized = entry.value("normalized", !t.special);
    t.lstrip = entry.value("lstrip", false);
    t.rstrip = entry.value("rstrip", false);
    t.single_word = entry.value("single_word", false);
    if (t.content.empty()) continue;
    const auto known = ids.find(t.content);
    if (known != ids.end()) {
      t.id = known->second;
    } else if (const auto in_model = model.token_id(t.content)) {
      t.id = *in_model;
    } else {
      t.id = next_id++;
    }
    const int64_t file_id = entry.value("id", int64_t(-1));
    if (file_id != t.id) {
      spdlog::warn("{}: added token {:?} has id {} in the file; HF tokenizers gives it id {}, and so does plumb",
                   origin, t.content, file_id, t.id);
    }
    ids[t.content] = t.id;
    by_id[t.id] = std::move(t);
  }
  for (auto& [id, token] : by_id) {
    v.by_content_[token.content] = v.tokens_.size();
    v.by_id_[id] = v.tokens_.size();
    v.tokens_.push_back(std::move(token));
  }
  for (size_t i = 0; i < v.tokens_.size(); ++i)
    (v.tokens_[i].normalized ? v.normalized_trie_ : v.trie_).insert(v.tokens_[i].content, int32_t(i));
  return v;
}

const AddedToken* AddedVocabulary::by_id(TokenId id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

const AddedToken* AddedVocabulary::by_content(std::string_view content) const {
  const auto it = by_content_.find(std::string(content));
  return it == by_content_.end() ? nullptr : &tokens_[it->second];
}

bool AddedVocabulary::is_word_char_before(std::string_view text, size_t pos) const {
  if (pos == 0) return false;
  const size_t at = previous_char(text, pos);
  size_t begin, end;
  return word_char_.find(text.substr(at, pos - at), 0, begin, end);
}

bool AddedVocabulary::is_word_char_at(std::string_view text, size_t pos) const {
  if (pos >= text.size()) return false;
  size_t next = pos;
  if (!utf8_next(text, next)) return false;
  size_t begin, end;
  return word_char_.find(text.substr(pos, next - pos), 0, begin, end);
}

void AddedVocabulary::find(std::string_view text, int which, bool allow_special, std::vector<Piece>& out) const {
  out.clear();
  const Trie& trie = which == 0 ? trie_ : normalized_trie_;
  size_t start_offset = 0;
  if (trie.nodes.size() > 1) {
    size_t pos = 0;
    while (pos < text.size()) {
      if (!trie.first_byte[static_cast<unsigned char>(text[pos])]) {
        ++pos;
        continue;
      }
      const auto [index, length] = trie.longest(text, pos);
      if (index < 0) {
        ++pos;
        continue;
      }
      size_t start = pos, stop = pos + length;
      pos = stop;  // the search resumes after the match, whether or not it is used
      const AddedToken& token = tokens_[index];
      if (!allow_special && token.special) continue;
      if (token.single_word && (is_word_char_before(text, start) || is_word_char_at(text, stop))) continue;
      if (token.lstrip) start = std::max(trailing_space_start(text, start), start_offset);
      if (token.rstrip) stop += leading_space_length(text, stop);
      if (start_offset < start) out.push_back({start_offset, start, -1});
      out.push_back({start, stop, token.id});
      start_offset = stop;
    }
  }
  if (start_offset < text.size()) out.push_back({start_offset, text.size(), -1});
}

void AddedVocabulary::split(std::string_view text, bool allow_special, std::vector<Piece>& out,
                            std::vector<Piece>& scratch) const {
  std::vector<Piece> first;
  find(text, 0, allow_special, first);
  out.clear();
  for (const Piece& piece : first) {
    if (piece.id >= 0 || normalized_trie_.nodes.size() <= 1) {
      if (piece.end > piece.begin) out.push_back(piece);
      continue;
    }
    find(text.substr(piece.begin, piece.end - piece.begin), 1, allow_special, scratch);
    for (const Piece& inner : scratch)
      if (inner.end > inner.begin) out.push_back({piece.begin + inner.begin, piece.begin + inner.end, inner.id});
  }
}

}  // namespace plumb::text
