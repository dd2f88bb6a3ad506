// The GPT-2 byte-level alphabet: every byte 0..255 is shown as one printable Unicode character so that BPE
// vocabularies can be written as text. Printable Latin-1 bytes stand for themselves; the 68 others (controls,
// space, DEL, NBSP, soft hyphen) are moved to U+0100.. in byte order. Used by the ByteLevel pre-tokenizer,
// the ByteLevel decoder and the tiny tokenizer generator.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plumb::text {

// The code point that stands for byte b.
char32_t byte_level_char(uint8_t b);

// The UTF-8 text of byte_level_char(b) (one or two bytes).
const std::string& byte_level_utf8(uint8_t b);

// The byte a code point stands for, or nullopt when it is not in the alphabet.
std::optional<uint8_t> byte_level_byte(char32_t c);

// Maps raw bytes to their byte-level text ("a b" -> "aĠb").
std::string byte_level_encode(std::string_view bytes);

// Maps byte-level text back to raw bytes; nullopt when any character is outside the alphabet (the HF decoder
// then keeps the token's own UTF-8 bytes).
std::optional<std::string> byte_level_decode(std::string_view text);

}  // namespace plumb::text
