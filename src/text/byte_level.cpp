// The byte-level alphabet tables, built once.
#include "text/byte_level.h"

#include <vector>

#include "text/utf8.h"

namespace plumb::text {
namespace {

struct Tables {
  std::array<char32_t, 256> to_char{};
  std::array<std::string, 256> to_utf8{};
  // Every alphabet character is below U+0144, so a flat table covers the reverse map.
  std::array<int16_t, 0x200> to_byte{};

  Tables() {
    to_byte.fill(-1);
    auto printable = [](int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE); };
    int next = 0;
    for (int b = 0; b < 256; ++b) {
      to_char[b] = printable(b) ? char32_t(b) : char32_t(256 + next++);
      to_utf8[b] = utf8_encode(to_char[b]);
      to_byte[to_char[b]] = int16_t(b);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

char32_t byte_level_char(uint8_t b) { return tables().to_char[b]; }

const std::string& byte_level_utf8(uint8_t b) { return tables().to_utf8[b]; }

std::optional<uint8_t> byte_level_byte(char32_t c) {
  if (c >= tables().to_byte.size() || tables().to_byte[c] < 0) return std::nullopt;
  return uint8_t(tables().to_byte[c]);
}

std::string byte_level_encode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) out += byte_level_utf8(b);
  return out;
}

std::optional<std::string> byte_level_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const auto c = utf8_next(text, pos);
    if (!c) return std::nullopt;
    const auto b = byte_level_byte(*c);
    if (!b) return std::nullopt;
    out += char(*b);
  }
  return out;
}

}  // namespace plumb::text
