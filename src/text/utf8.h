// UTF-8 checks shared by the tokenizer, the decoder and the streaming detokenizer. Well-formedness follows
// Unicode's table 3-7 (no overlongs, no surrogates, nothing above U+10FFFF). Lossy decoding replaces each
// "maximal subpart" of an ill-formed sequence with one U+FFFD, as the Unicode standard recommends and as
// Rust's String::from_utf8_lossy (the HF decoder) does, so plumb's decoded text equals the reference's.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace plumb::text {

inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

// One step through bytes at a position: a whole character, an ill-formed run to replace by one U+FFFD, or
// the start of a character whose remaining bytes have not arrived yet.
struct Utf8Step {
  enum Kind { complete, invalid, incomplete };
  Kind kind;
  size_t length;  // bytes consumed (complete, invalid) or available (incomplete)
};
Utf8Step utf8_step(std::string_view bytes, size_t pos);

// The byte offset of the first ill-formed or truncated sequence, or npos when text is valid UTF-8.
size_t utf8_find_invalid(std::string_view text);

// Throws plumb::Error "<what>: invalid UTF-8 at byte N" when text is not valid UTF-8.
void utf8_require_valid(std::string_view text, std::string_view what);

// Decodes the character at pos and advances pos; nullopt (pos unchanged) when the bytes there are not a
// whole well-formed character.
std::optional<char32_t> utf8_next(std::string_view text, size_t& pos);

// The UTF-8 bytes of one code point (which must be a Unicode scalar value).
std::string utf8_encode(char32_t c);

// Appends bytes to out with every ill-formed or truncated sequence replaced by U+FFFD.
void utf8_append_lossy(std::string& out, std::string_view bytes);

}  // namespace plumb::text
