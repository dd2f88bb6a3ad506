// Finding or writing the built-in tiny model in the cache folder.
#include "model/dsv4/builtin_model.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "base/error.h"
#include "base/sha256.h"
#include "model/dsv4/tiny_checkpoint.h"
#include "text/tiny_tokenizer.h"

namespace plumb::dsv4 {

std::filesystem::path plumb_cache_dir() {
  if (const char* dir = std::getenv("PLUMB_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "plumb";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "plumb";
  fail("no cache folder for the built-in model: set PLUMB_CACHE_DIR (or XDG_CACHE_HOME or HOME)");
}

std::filesystem::path builtin_model_dir() {
  const TinySpec spec;
  // The key covers the generator version, the seed and the tokenizer text, which another module owns.
  const std::string tokenizer = text::tiny_tokenizer_json(int(spec.vocab));
  const auto digest = sha256(tokenizer.data(), tokenizer.size());
  const std::string name =
      fmt::format("tiny-dsv4-v{}-seed{}-tok{}", kTinyGeneratorVersion, spec.seed, to_hex(digest).substr(0, 12));
  const std::filesystem::path cache = plumb_cache_dir();
  const std::filesystem::path final_dir = cache / name;
  if (std::filesystem::is_regular_file(final_dir / "config.json")) return final_dir;

  std::error_code ec;
  std::filesystem::create_directories(cache, ec);
  if (ec) fail("{}: cannot create the cache folder: {}", cache.string(), ec.message());
  static std::atomic<uint64_t> attempt{0};  // threads of one process share the pid
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  const std::filesystem::path tmp =
      cache / fmt::format(".{}.tmp-{}-{}-{}", name, ::getpid(), stamp, attempt.fetch_add(1));
  spdlog::info("writing the built-in tiny model to {}", final_dir.string());
  try {
    write_tiny_checkpoint(tmp, spec);
  } catch (...) {
    std::filesystem::remove_all(tmp, ec);
    throw;
  }
  // rename() of a folder is atomic and refuses a non-empty target: a racing process that got there first wins
  // and this copy is dropped.
  std::filesystem::rename(tmp, final_dir, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove_all(tmp, ignored);
    if (!std::filesystem::is_regular_file(final_dir / "config.json"))
      fail("{}: cannot move the built-in model into place: {}", final_dir.string(), ec.message());
  }
  return final_dir;
}

}  // namespace plumb::dsv4
