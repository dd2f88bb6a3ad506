// UTF-8 stepping by Unicode's table 3-7 of well-formed byte sequences.
#include "text/utf8.h"

#include "base/error.h"

namespace plumb::text {
namespace {

// The allowed range of the second byte for a lead byte; later bytes are always 80..BF.
struct LeadInfo {
  int length;  // 0: not a lead byte
  unsigned char second_lo, second_hi;
};

LeadInfo lead_info(unsigned char b) {
  if (b < 0x80) return {1, 0, 0};
  if (b < 0xC2) return {0, 0, 0};
  if (b < 0xE0) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b < 0xF0) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b < 0xF4) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

}  // namespace

Utf8Step utf8_step(std::string_view bytes, size_t pos) {
  const auto lead = static_cast<unsigned char>(bytes[pos]);
  const LeadInfo info = lead_info(lead);
  if (info.length == 0) return {Utf8Step::invalid, 1};
  if (info.length == 1) return {Utf8Step::complete, 1};
  for (int i = 1; i < info.length; ++i) {
    if (pos + i >= bytes.size()) return {Utf8Step::incomplete, size_t(i)};
    const auto b = static_cast<unsigned char>(bytes[pos + i]);
    const unsigned char lo = i == 1 ? info.second_lo : 0x80;
    const unsigned char hi = i == 1 ? info.second_hi : 0xBF;
    if (b < lo || b > hi) return {Utf8Step::invalid, size_t(i)};
  }
  return {Utf8Step::complete, size_t(info.length)};
}

size_t utf8_find_invalid(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    // ASCII runs dominate real text; skip them eight bytes at a time.
    while (pos + 8 <= text.size()) {
      uint64_t word;
      __builtin_memcpy(&word, text.data() + pos, 8);
      if (word & 0x8080808080808080ull) break;
      pos += 8;
    }
    if (pos >= text.size()) break;
    const Utf8Step step = utf8_step(text, pos);
    if (step.kind != Utf8Step::complete) return pos;
    pos += step.length;
  }
  return std::string_view::npos;
}

void utf8_require_valid(std::string_view text, std::string_view what) {
  const size_t bad = utf8_find_invalid(text);
  if (bad != std::string_view::npos) {
    fail("{}: invalid UTF-8 at byte {} (byte 0x{:02X}); plumb only accepts valid UTF-8 text", what, bad,
         static_cast<unsigned char>(text[bad]));
  }
}

std::optional<char32_t> utf8_next(std::string_view text, size_t& pos) {
  if (pos >= text.size()) return std::nullopt;
  const Utf8Step step = utf8_step(text, pos);
  if (step.kind != Utf8Step::complete) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data() + pos);
  char32_t c;
  switch (step.length) {
    case 1: c = p[0]; break;
    case 2: c = (char32_t(p[0] & 0x1F) << 6) | (p[1] & 0x3F); break;
    case 3: c = (char32_t(p[0] & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F); break;
    default:
      c = (char32_t(p[0] & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) | (char32_t(p[2] & 0x3F) << 6) |
          (p[3] & 0x3F);
  }
  pos += step.length;
  return c;
}

std::string utf8_encode(char32_t c) {
  PLUMB_CHECK(c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF));
  std::string out;
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
  return out;
}

void utf8_append_lossy(std::string& out, std::string_view bytes) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    const Utf8Step step = utf8_step(bytes, pos);
    if (step.kind == Utf8Step::complete) {
      out.append(bytes.substr(pos, step.length));
    } else {
      out.append(kReplacementChar);
    }
    pos += step.length;
  }
}

}  // namespace plumb::text
