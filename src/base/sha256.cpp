#include "base/sha256.h"

#include <openssl/evp.h>

#include "base/error.h"

namespace plumb {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    fail("sha256: OpenSSL digest initialisation failed");
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256::update(const void* data, size_t size) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data, size) != 1) fail("sha256: update failed");
}

Sha256Digest Sha256::finish() {
  Sha256Digest out{};
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), out.data(), &n) != 1 || n != out.size())
    fail("sha256: finish failed");
  return out;
}

Sha256Digest sha256(const void* data, size_t size) {
  Sha256 h;
  h.update(data, size);
  return h.finish();
}

std::string to_hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

std::string token_sha256(std::span<const int32_t> ids) {
  Sha256 h;
  for (int32_t id : ids) {
    const uint32_t v = uint32_t(id);
    const uint8_t le[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    h.update(le, 4);
  }
  const auto d = h.finish();
  return to_hex(d);
}

}  // namespace plumb
