// The Oniguruma-to-PCRE2 rewrite and the compiled-pattern wrapper (see regex.h).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/regex.h"

#include <pcre2.h>

#include <cctype>

#include "base/error.h"

namespace plumb::text {
namespace {

// Oniguruma's Unicode \s: TAB..CR, NEL, the line and paragraph separators and Space_Separator (no U+180E).
constexpr std::string_view kSpaceItems = R"(\t\n\x{0B}\f\r\x{85}\x{2028}\x{2029}\p{Zs})";
// Oniguruma's Unicode \w: Letter, Mark, Decimal_Number, Connector_Punctuation.
constexpr std::string_view kWordItems = R"(\p{L}\p{M}\p{Nd}\p{Pc})";
constexpr std::string_view kDigitItems = R"(\p{Nd})";
constexpr std::string_view kHexItems = "0-9a-fA-F";

std::string bracket(std::string_view items, bool negate) {
  return std::string(negate ? "[^" : "[") + std::string(items) + "]";
}

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof(buffer));
  return reinterpret_cast<const char*>(buffer);
}

// Per-thread match state: PCRE2 match data is not shareable across threads.
struct MatchScratch {
  pcre2_match_data* data = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* jit_stack = nullptr;
  MatchScratch() {
    data = pcre2_match_data_create(1, nullptr);
    context = pcre2_match_context_create(nullptr);
    // Long runs of one class (a megabyte of spaces) backtrack deeply through lookaheads; give JIT room.
    jit_stack = pcre2_jit_stack_create(64 * 1024, 256 * 1024 * 1024, nullptr);
    PLUMB_CHECK(data && context && jit_stack);
    pcre2_jit_stack_assign(context, nullptr, jit_stack);
  }
  ~MatchScratch() {
    pcre2_jit_stack_free(jit_stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
};

MatchScratch& scratch() {
  thread_local MatchScratch s;
  return s;
}

}  // namespace

std::string onig_to_pcre2(std::string_view p) {
  auto refuse = [&](size_t at, std::string_view what) {
    fail("regex {:?}: {} at byte {} is not supported (its Oniguruma meaning cannot be carried to PCRE2)",
         std::string(p), what, at);
  };
  std::string out;
  out.reserve(p.size() * 2);
  bool in_class = false;
  size_t class_body = 0;  // where the current class's items start
  for (size_t i = 0; i < p.size();) {
    const char c = p[i];
    if (c == '\\') {
      if (i + 1 >= p.size()) refuse(i, "a trailing backslash");
      const char e = p[i + 1];
      switch (e) {
        case 's': out += in_class ? std::string(kSpaceItems) : bracket(kSpaceItems, false); break;
        case 'w': out += in_class ? std::string(kWordItems) : bracket(kWordItems, false); break;
        case 'd': out += in_class ? std::string(kDigitItems) : bracket(kDigitItems, false); break;
        case 'h': out += in_class ? std::string(kHexItems) : bracket(kHexItems, false); break;
        case 'D':
          out += in_class ? std::string(R"(\P{Nd})") : bracket(kDigitItems, true);
          break;
        case 'S':
        case 'W':
        case 'H':
          if (in_class) refuse(i, "a negated shorthand inside a character class");
          out += bracket(e == 'S' ? kSpaceItems : e == 'W' ? kWordItems : kHexItems, true);
          break;
        case 'b':
        case 'B':
          if (in_class) {
            out += "\\b";  // backspace in both engines
          } else {
            const std::string w = bracket(kWordItems, false);
            out += e == 'b' ? "(?:(?<=" + w + ")(?!" + w + ")|(?<!" + w + ")(?=" + w + "))"
                            : "(?:(?<=" + w + ")(?=" + w + ")|(?<!" + w + ")(?!" + w + "))";
          }
          break;
        case 'u': {
          if (i + 6 > p.size()) refuse(i, "a short \\u escape");
          const std::string hex(p.substr(i + 2, 4));
          for (char h : hex)
            if (!std::isxdigit(static_cast<unsigned char>(h))) refuse(i, "a malformed \\u escape");
          out += "\\x{" + hex + "}";
          i += 6;
          continue;
        }
        default:
          out += c;
          out += e;
      }
      i += 2;
      continue;
    }
    if (in_class) {
      if (c == '[') refuse(i, "a nested character class or POSIX bracket");
      if (c == '&' && i + 1 < p.size() && p[i + 1] == '&') refuse(i, "a class intersection (&&)");
      if (c == ']') {
        if (i == class_body) refuse(i, "a ']' first in a character class");
        in_class = false;
      }
      out += c;
      ++i;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      ++i;
      if (i < p.size() && p[i] == '^') out += p[i++];
      class_body = i;
      continue;
    }
    if (c == '(' && i + 2 < p.size() && p[i + 1] == '?') {
      // Inline options: only i and x mean the same in both engines.
      for (size_t j = i + 2; j < p.size() && (std::isalpha(static_cast<unsigned char>(p[j])) || p[j] == '-'); ++j)
        if (p[j] != 'i' && p[j] != 'x' && p[j] != '-') refuse(j, "an inline option other than i and x");
    }
    out += c;
    ++i;
  }
  if (in_class) refuse(p.size(), "an unterminated character class");
  return out;
}

Regex::Regex(std::string_view onig_pattern, std::string_view origin) : pattern_(onig_pattern) {
  const std::string translated = onig_to_pcre2(onig_pattern);
  pcre2_compile_context* context = pcre2_compile_context_create(nullptr);
  pcre2_set_newline(context, PCRE2_NEWLINE_LF);
  pcre2_set_bsr(context, PCRE2_BSR_UNICODE);
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  auto* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                             PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE | PCRE2_NEVER_BACKSLASH_C, &error,
                             &error_offset, context);
  pcre2_compile_context_free(context);
  if (!code) {
    fail("{}: regex {:?} does not compile: {} (at offset {} of the PCRE2 form {:?})", origin, pattern_,
         pcre2_message(error), error_offset, translated);
  }
  code_ = code;
  jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() {
  if (code_) pcre2_code_free(static_cast<pcre2_code*>(code_));
}

Regex::Regex(Regex&& other) noexcept : pattern_(std::move(other.pattern_)), code_(other.code_), jit_(other.jit_) {
  other.code_ = nullptr;
}

Regex& Regex::operator=(Regex&& other) noexcept {
  if (this != &other) {
    if (code_) pcre2_code_free(static_cast<pcre2_code*>(code_));
    pattern_ = std::move(other.pattern_);
    code_ = other.code_;
    jit_ = other.jit_;
    other.code_ = nullptr;
  }
  return *this;
}

bool Regex::find(std::string_view subject, size_t start, size_t& begin, size_t& end) const {
  MatchScratch& s = scratch();
  const auto* code = static_cast<const pcre2_code*>(code_);
  const auto* text = reinterpret_cast<PCRE2_SPTR>(subject.data());
  // Callers pass validated UTF-8 split at character boundaries, so PCRE2's own check is skipped.
  const int rc = jit_ ? pcre2_jit_match(code, text, subject.size(), start, PCRE2_NO_UTF_CHECK, s.data, s.context)
                      : pcre2_match(code, text, subject.size(), start, PCRE2_NO_UTF_CHECK, s.data, s.context);
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0) fail("regex {:?}: matching failed: {}", pattern_, pcre2_message(rc));
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(s.data);
  begin = ovector[0];
  end = ovector[1];
  if (begin > end) fail("regex {:?}: \\K produced a match that ends before it starts", pattern_);
  return true;
}

size_t Regex::next_char(std::string_view subject, size_t pos) {
  if (pos >= subject.size()) return subject.size() + 1;
  ++pos;
  while (pos < subject.size() && (static_cast<unsigned char>(subject[pos]) & 0xC0) == 0x80) ++pos;
  return pos;
}

}  // namespace plumb::text
