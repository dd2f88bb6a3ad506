// Regular expressions of tokenizer.json files, run through PCRE2 (UTF mode, Unicode properties, JIT).
// HF tokenizers compiles these patterns with Oniguruma, so a pattern is first rewritten where the two
// engines disagree: \s and \S mean Oniguruma's whitespace set (PCRE2's also holds U+180E), \w \d \b follow
// Oniguruma's Unicode definitions, \h is a hex digit, \uHHHH is a code point, and ^ $ are line anchors.
// Constructs whose meaning cannot be carried over (nested classes, class intersections, POSIX brackets,
// negated shorthands inside a class, the m/s inline options) are refused with an error naming the pattern.
//
// find_all() reports matches the way HF's Oniguruma binding iterates them: leftmost-first, an empty match
// right after the previous match is skipped and the search moves on by one character.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace plumb::text {

// The PCRE2 pattern equivalent to an Oniguruma one; throws plumb::Error for constructs it cannot carry over.
std::string onig_to_pcre2(std::string_view onig_pattern);

class Regex {
 public:
  // Compiles an Oniguruma-syntax pattern; `origin` names it in errors.
  Regex(std::string_view onig_pattern, std::string_view origin);
  ~Regex();
  Regex(Regex&& other) noexcept;
  Regex& operator=(Regex&& other) noexcept;
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Calls on_match(begin, end) for each match in subject, in order (byte offsets into subject, which must be
  // valid UTF-8). Thread-safe: matching state lives in per-thread scratch.
  template <typename OnMatch>
  void find_all(std::string_view subject, OnMatch&& on_match) const {
    size_t search_from = 0;
    size_t last_match_end = std::string_view::npos;
    size_t begin, end;
    while (search_from <= subject.size() && find(subject, search_from, begin, end)) {
      if (begin == end && end == last_match_end) {
        search_from = next_char(subject, search_from);
        continue;
      }
      on_match(begin, end);
      search_from = end;
      last_match_end = end;
    }
  }

  // The first match starting at or after `start`; false when there is none.
  bool find(std::string_view subject, size_t start, size_t& begin, size_t& end) const;


 private:
  static size_t next_char(std::string_view subject, size_t pos);

  std::string pattern_;  // the Oniguruma original, for messages
  void* code_ = nullptr;  // pcre2_code*
  bool jit_ = false;
};

}  // namespace plumb::text
