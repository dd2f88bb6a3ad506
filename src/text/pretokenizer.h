// The pre-tokenizer of a tokenizer.json: cuts text (between added tokens) into the pieces the BPE model
// sees. Supported, as HF tokenizers runs them: "Split" (a Regex or String pattern; behaviors Isolated,
// Removed, Contiguous, MergedWithPrevious, MergedWithNext; invert), "ByteLevel" (add_prefix_space, and
// use_regex for the GPT-2 split) and a "Sequence" of those with ByteLevel last. Pieces stay raw bytes;
// the ByteLevel step only marks them as byte-level, and the BPE model maps the bytes to its alphabet.
// Other pre-tokenizer types are refused at load time with the type named.
#pragma once

#include <nlohmann/json.hpp>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "text/regex.h"

namespace plumb::text {

// Per-call work space: the pieces of the current and previous step, and texts made by add_prefix_space.
struct PreTokenizerScratch {
  std::vector<std::string_view> pieces, next;
  std::deque<std::string> owned;
};

class PreTokenizer {
 public:
  // Reads the "pre_tokenizer" value (null means: the whole text is one piece).
  static PreTokenizer from_json(const nlohmann::json& spec, std::string_view origin);

  // Cuts text into scratch.pieces (views into text or into scratch.owned); empty pieces are dropped.
  void split(std::string_view text, PreTokenizerScratch& scratch) const;

  // Whether pieces are byte-level (the BPE model then maps bytes to the byte-level alphabet).
  bool byte_level() const { return byte_level_; }

 private:
  enum class Behavior { isolated, removed, contiguous, merged_with_previous, merged_with_next };
  struct SplitStep {
    Regex regex;
    Behavior behavior;
    bool invert;
  };

  static void parse(const nlohmann::json& spec, std::string_view origin, PreTokenizer& into);
  static void apply(const SplitStep& step, std::string_view piece, std::vector<std::string_view>& out);

  std::vector<SplitStep> splits_;
  bool byte_level_ = false;
  bool add_prefix_space_ = false;
  std::vector<SplitStep> byte_level_splits_;  // the GPT-2 regex when ByteLevel.use_regex
};

}  // namespace plumb::text
