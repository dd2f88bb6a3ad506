// Prompt-cache states on disk. A file holds one state with a header (magic, version, the hash of the cache
// namespace: model, weights, build and state layout) and a SHA-256 of its payload. A missing, truncated, corrupted
// or foreign file is ignored with a warning: it can cost a prefill, never wrong output.
#pragma once

#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace plumb::engine {

struct CachedState;

class SpillStore {
 public:
  SpillStore(std::filesystem::path dir, int64_t budget_bytes, std::string namespace_key);

  // Writes a state; the oldest files go when the budget is exceeded.
  void write(uint64_t key, const CachedState& state);
  // Reads and verifies a state; nullptr (with a warning) when the file is missing or bad.
  std::shared_ptr<CachedState> read(uint64_t key, std::span<const int32_t> expect_prefix);
  bool has(uint64_t key) const { return files_.count(key) != 0; }
  void forget(uint64_t key);
  // Prefix lengths of the files found at start (so lookups probe them).
  std::vector<std::pair<uint64_t, int64_t>> known() const;

  int64_t writes = 0, reads = 0, rejects = 0;

 private:
  std::filesystem::path path_of(uint64_t key) const;
  void enforce_budget();

  std::filesystem::path dir_;
  int64_t budget_bytes_;
  std::string namespace_hash_;  // hex SHA-256 of the namespace key
  struct File {
    int64_t tokens;
    int64_t bytes;
    std::list<uint64_t>::iterator age;
  };
  std::unordered_map<uint64_t, File> files_;
  std::list<uint64_t> ages_;  // front = newest
  int64_t total_bytes_ = 0;
};

}  // namespace plumb::engine
