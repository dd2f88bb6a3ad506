// SHA-256 (through OpenSSL): token_sha256 of generated ids, checkpoint and spill-file keys.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace plumb {

using Sha256Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t size);
  Sha256Digest finish();

 private:
  void* ctx_;
};

Sha256Digest sha256(const void* data, size_t size);
std::string to_hex(std::span<const uint8_t> bytes);
// SHA-256 of the ids as little-endian uint32, hex: the token_sha256 every request reports.
std::string token_sha256(std::span<const int32_t> ids);

}  // namespace plumb
