#include "engine/prompt_cache_spill.h"

#include <spdlog/spdlog.h>

#include <cstring>
#include <fstream>

#include "base/sha256.h"
#include "engine/prompt_cache.h"

namespace plumb::engine {
namespace {

constexpr char kMagic[8] = {'P', 'L', 'U', 'M', 'B', 'K', 'V', '1'};
constexpr uint32_t kVersion = 1;

struct Header {
  char magic[8];
  uint32_t version;
  char namespace_hash[64];
  uint64_t key;
  int64_t tokens;
  int64_t mtp_done;
  int64_t position;
  uint64_t payload_bytes;
  char payload_sha[64];
};

std::string payload_sha(const CachedState& s) {
  Sha256 h;
  h.update(s.tokens.data(), s.tokens.size() * sizeof(int32_t));
  h.update(s.snapshot.bytes.data(), s.snapshot.bytes.size());
  const auto d = h.finish();
  return to_hex(d);
}

}  // namespace

SpillStore::SpillStore(std::filesystem::path dir, int64_t budget_bytes, std::string namespace_key)
    : dir_(std::move(dir)), budget_bytes_(budget_bytes) {
  namespace_hash_ = to_hex(sha256(namespace_key.data(), namespace_key.size()));
  std::filesystem::create_directories(dir_);
  // Files from an earlier run of the same model and build are reused; anything else is left alone.
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    if (e.path().extension() != ".plumbkv") continue;
    Header h{};
    std::ifstream in(e.path(), std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) continue;
    if (std::memcmp(h.magic, kMagic, 8) != 0 || h.version != kVersion) continue;
    if (std::string(h.namespace_hash, 64) != namespace_hash_) continue;
    if (e.path() != path_of(h.key)) continue;
    ages_.push_back(h.key);
    files_[h.key] = {h.tokens, int64_t(e.file_size()), std::prev(ages_.end())};
    total_bytes_ += int64_t(e.file_size());
  }
  enforce_budget();
}

std::filesystem::path SpillStore::path_of(uint64_t key) const {
  return dir_ / fmt::format("{}-{:016x}.plumbkv", namespace_hash_.substr(0, 16), key);
}

void SpillStore::write(uint64_t key, const CachedState& state) {
  if (budget_bytes_ <= 0) return;
  forget(key);
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  std::memcpy(h.namespace_hash, namespace_hash_.data(), 64);
  h.key = key;
  h.tokens = int64_t(state.tokens.size());
  h.mtp_done = state.mtp_done;
  h.position = state.snapshot.position;
  h.payload_bytes = state.snapshot.bytes.size();
  const std::string sha = payload_sha(state);
  std::memcpy(h.payload_sha, sha.data(), 64);

  const auto path = path_of(key);
  const auto tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(state.tokens.data()), std::streamsize(state.tokens.size() * 4));
    out.write(reinterpret_cast<const char*>(state.snapshot.bytes.data()), std::streamsize(state.snapshot.bytes.size()));
    if (!out) {
      spdlog::warn("prompt cache: could not write spill file {}", tmp);
      std::filesystem::remove(tmp);
      return;
    }
  }
  std::filesystem::rename(tmp, path);
  const int64_t bytes = int64_t(sizeof h + state.tokens.size() * 4 + state.snapshot.bytes.size());
  ages_.push_front(key);
  files_[key] = {h.tokens, bytes, ages_.begin()};
  total_bytes_ += bytes;
  ++writes;
  enforce_budget();
}

std::shared_ptr<CachedState> SpillStore::read(uint64_t key, std::span<const int32_t> expect_prefix) {
  const auto path = path_of(key);
  auto reject = [&](const char* why) -> std::shared_ptr<CachedState> {
    spdlog::warn("prompt cache: ignoring spill file {}: {}", path.string(), why);
    ++rejects;
    forget(key);
    return nullptr;
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return reject("missing");
  Header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return reject("truncated header");
  if (std::memcmp(h.magic, kMagic, 8) != 0 || h.version != kVersion) return reject("not a plumb state file");
  if (std::string(h.namespace_hash, 64) != namespace_hash_) return reject("written by another model or build");
  if (h.key != key || h.tokens < 0 || h.tokens > int64_t(expect_prefix.size()) + (int64_t(1) << 30))
    return reject("header does not match");
  auto state = std::make_shared<CachedState>();
  state->tokens.resize(size_t(h.tokens));
  state->mtp_done = h.mtp_done;
  state->snapshot.position = h.position;
  if (h.payload_bytes > (uint64_t(1) << 40)) return reject("implausible size");
  state->snapshot.bytes.resize(size_t(h.payload_bytes));
  if (!in.read(reinterpret_cast<char*>(state->tokens.data()), std::streamsize(h.tokens * 4)) ||
      !in.read(reinterpret_cast<char*>(state->snapshot.bytes.data()), std::streamsize(h.payload_bytes)))
    return reject("truncated");
  if (payload_sha(*state) != std::string(h.payload_sha, 64)) return reject("checksum mismatch");
  if (state->tokens.size() > expect_prefix.size() ||
      !std::equal(state->tokens.begin(), state->tokens.end(), expect_prefix.begin()))
    return reject("tokens differ from the prompt");
  ++reads;
  return state;
}

void SpillStore::forget(uint64_t key) {
  auto it = files_.find(key);
  if (it == files_.end()) return;
  std::error_code ec;
  std::filesystem::remove(path_of(key), ec);
  total_bytes_ -= it->second.bytes;
  ages_.erase(it->second.age);
  files_.erase(it);
}

std::vector<std::pair<uint64_t, int64_t>> SpillStore::known() const {
  std::vector<std::pair<uint64_t, int64_t>> out;
  for (const auto& [key, f] : files_) out.push_back({key, f.tokens});
  return out;
}

void SpillStore::enforce_budget() {
  while (total_bytes_ > budget_bytes_ && !ages_.empty()) forget(ages_.back());
}

}  // namespace plumb::engine
