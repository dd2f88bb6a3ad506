// Loading a tokenizer.json and running encode/decode through its stages (see tokenizer.h).
#include "text/tokenizer.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "base/error.h"
#include "text/added_vocabulary.h"
#include "text/bpe_model.h"
#include "text/byte_level.h"
#include "text/pretokenizer.h"
#include "text/utf8.h"

namespace plumb::text {
namespace {

// The normalizers plumb accepts are the ones that change nothing: null, or Sequences of nothing.
bool is_identity_normalizer(const nlohmann::json& n) {
  if (n.is_null()) return true;
  if (!n.is_object() || n.value("type", "") != "Sequence") return false;
  for (const auto& inner : n.value("normalizers", nlohmann::json::array()))
    if (!is_identity_normalizer(inner)) return false;
  return true;
}

}  // namespace

struct Tokenizer::Impl {
  std::string origin;
  BpeModel model;
  AddedVocabulary added;
  PreTokenizer pre_tokenizer;
  bool byte_level_decoder = false;
  std::vector<std::string> text_by_id;   // the token string as the file writes it
  std::vector<std::string> bytes_by_id;  // what the decoder makes of it
  enum : uint8_t { kPresent = 1, kAdded = 2, kSpecial = 4 };
  std::vector<uint8_t> flags;

  void require_id(TokenId id) const {
    if (id < 0 || size_t(id) >= flags.size() || !(flags[id] & kPresent))
      fail("{}: token id {} is not in the vocabulary (ids run from 0 to {})", origin, id, flags.size() - 1);
  }
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_file(const std::filesystem::path& model_dir_or_file) {
  std::filesystem::path path = model_dir_or_file;
  if (std::filesystem::is_directory(path)) path /= "tokenizer.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open the tokenizer file (a model folder must contain tokenizer.json)", path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return from_json(text.str(), path.string());
}

Tokenizer Tokenizer::from_json(std::string_view json_text, std::string_view origin) {
  nlohmann::json file;
  try {
    file = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON: {}", origin, e.what());
  }
  if (!file.is_object()) fail("{}: a tokenizer.json must hold a JSON object", origin);
  auto impl = std::make_unique<Impl>();
  impl->origin = origin;
  static const nlohmann::json null_json;
  // By reference: the model object holds the whole vocabulary and merge list.
  auto field = [&](const char* key) -> const nlohmann::json& {
    const auto it = file.find(key);
    return it == file.end() ? null_json : *it;
  };
  try {
    if (!is_identity_normalizer(field("normalizer"))) {
      fail("{}: normalizer {} is not supported (plumb reads files without normalization)", origin,
           file["normalizer"].dump());
    }
    impl->model = BpeModel::from_json(field("model"), origin);
    impl->added = AddedVocabulary::from_json(field("added_tokens"), impl->model, origin);
    impl->pre_tokenizer = PreTokenizer::from_json(field("pre_tokenizer"), origin);
    const auto& decoder = field("decoder");
    if (!decoder.is_null()) {
      const std::string type = decoder.value("type", "");
      if (type != "ByteLevel")
        fail("{}: decoder type {:?} is not supported (plumb reads ByteLevel decoders)", origin, type);
      impl->byte_level_decoder = true;
    }
  } catch (const nlohmann::json::exception& e) {
    fail("{}: unexpected structure: {}", origin, e.what());
  }

  TokenId max_id = impl->model.max_id();
  for (const auto& t : impl->added.tokens()) max_id = std::max(max_id, t.id);
  const size_t size = size_t(max_id + 1);
  impl->text_by_id.assign(size, std::string());
  impl->bytes_by_id.assign(size, std::string());
  impl->flags.assign(size, 0);
  auto set = [&](TokenId id, const std::string& text, uint8_t flags) {
    impl->text_by_id[id] = text;
    std::optional<std::string> bytes;
    if (impl->byte_level_decoder) bytes = byte_level_decode(text);
    impl->bytes_by_id[id] = bytes ? *bytes : text;
    impl->flags[id] = flags;
  };
  for (TokenId id = 0; id <= impl->model.max_id(); ++id)
    if (const std::string* token = impl->model.token(id)) set(id, *token, Impl::kPresent);
  // Added tokens take precedence when decoding, as in HF.
  for (const auto& t : impl->added.tokens())
    set(t.id, t.content, Impl::kPresent | Impl::kAdded | (t.special ? Impl::kSpecial : 0));
  return Tokenizer(std::move(impl));
}

std::vector<TokenId> Tokenizer::encode(std::string_view text, bool allow_special) const {
  utf8_require_valid(text, "text to encode");
  std::vector<TokenId> out;
  out.reserve(text.size() / 3 + 16);
  std::vector<AddedVocabulary::Piece> pieces, piece_scratch;
  PreTokenizerScratch pre_scratch;
  BpeCache cache;
  const bool byte_level = impl_->pre_tokenizer.byte_level();
  impl_->added.split(text, allow_special, pieces, piece_scratch);
  for (const auto& piece : pieces) {
    if (piece.id >= 0) {
      out.push_back(piece.id);
      continue;
    }
    impl_->pre_tokenizer.split(text.substr(piece.begin, piece.end - piece.begin), pre_scratch);
    for (const auto word : pre_scratch.pieces) impl_->model.tokenize(word, byte_level, cache, out);
  }
  return out;
}

std::string Tokenizer::decode(std::span<const TokenId> ids, bool skip_special) const {
  std::string joined;
  bool first = true;
  for (const TokenId id : ids) {
    impl_->require_id(id);
    if (skip_special && (impl_->flags[id] & Impl::kSpecial)) continue;
    if (impl_->byte_level_decoder) {
      joined += impl_->bytes_by_id[id];
    } else {
      if (!first) joined += ' ';
      joined += impl_->text_by_id[id];
    }
    first = false;
  }
  std::string out;
  out.reserve(joined.size());
  utf8_append_lossy(out, joined);
  return out;
}

std::string_view Tokenizer::token_bytes(TokenId id) const {
  impl_->require_id(id);
  return impl_->bytes_by_id[id];
}

std::string_view Tokenizer::token_text(TokenId id) const {
  impl_->require_id(id);
  return impl_->text_by_id[id];
}

std::optional<TokenId> Tokenizer::token_id(std::string_view token) const {
  if (const AddedToken* t = impl_->added.by_content(token)) return t->id;
  return impl_->model.token_id(token);
}

TokenId Tokenizer::require_token_id(std::string_view token) const {
  const auto id = token_id(token);
  if (!id) fail("{}: the tokenizer has no token {:?}", impl_->origin, std::string(token));
  return *id;
}

bool Tokenizer::is_special(TokenId id) const { return has_id(id) && (impl_->flags[id] & Impl::kSpecial); }
bool Tokenizer::is_added(TokenId id) const { return has_id(id) && (impl_->flags[id] & Impl::kAdded); }
bool Tokenizer::has_id(TokenId id) const {
  return id >= 0 && size_t(id) < impl_->flags.size() && (impl_->flags[id] & Impl::kPresent);
}
size_t Tokenizer::vocab_size() const { return impl_->flags.size(); }
bool Tokenizer::decodes_by_concatenation() const { return impl_->byte_level_decoder; }

}  // namespace plumb::text
