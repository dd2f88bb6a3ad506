// Parsing and running the pre-tokenizer steps (see pretokenizer.h).
#include "text/pretokenizer.h"

#include <algorithm>

#include "base/error.h"

namespace plumb::text {
namespace {

// The split HF's ByteLevel pre-tokenizer runs when use_regex is true (GPT-2's pattern).
constexpr std::string_view kGpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// A pattern that matches `literal` exactly, in Oniguruma syntax.
std::string escape_literal(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    if (std::string_view("\\^$.|?*+()[]{}-#&~ ").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

PreTokenizer PreTokenizer::from_json(const nlohmann::json& spec, std::string_view origin) {
  PreTokenizer p;
  if (!spec.is_null()) parse(spec, origin, p);
  return p;
}

void PreTokenizer::parse(const nlohmann::json& spec, std::string_view origin, PreTokenizer& into) {
  if (!spec.is_object() || !spec.contains("type") || !spec["type"].is_string())
    fail("{}: a pre_tokenizer entry has no \"type\"", origin);
  const std::string type = spec["type"];
  if (into.byte_level_) fail("{}: pre_tokenizer steps after ByteLevel are not supported", origin);
  if (type == "Sequence") {
    const auto it = spec.find("pretokenizers");
    if (it == spec.end() || !it->is_array()) fail("{}: a Sequence pre_tokenizer has no \"pretokenizers\" list", origin);
    for (const auto& step : *it) parse(step, origin, into);
  } else if (type == "Split") {
    const auto& pattern = spec.at("pattern");
    std::string regex;
    if (pattern.contains("Regex")) {
      regex = pattern["Regex"].get<std::string>();
    } else if (pattern.contains("String")) {
      regex = escape_literal(pattern["String"].get<std::string>());
    } else {
      fail("{}: a Split pattern is neither {{\"Regex\": ...}} nor {{\"String\": ...}}", origin);
    }
    const std::string behavior = spec.at("behavior").get<std::string>();
    Behavior b;
    if (behavior == "Isolated") b = Behavior::isolated;
    else if (behavior == "Removed") b = Behavior::removed;
    else if (behavior == "Contiguous") b = Behavior::contiguous;
    else if (behavior == "MergedWithPrevious") b = Behavior::merged_with_previous;
    else if (behavior == "MergedWithNext") b = Behavior::merged_with_next;
    else fail("{}: Split behavior {:?} is unknown", origin, behavior);
    into.splits_.push_back({Regex(regex, origin), b, spec.value("invert", false)});
  } else if (type == "ByteLevel") {
    into.byte_level_ = true;
    into.add_prefix_space_ = spec.value("add_prefix_space", true);
    if (spec.value("use_regex", true))
      into.byte_level_splits_.push_back({Regex(kGpt2Regex, origin), Behavior::isolated, false});
  } else {
    fail("{}: pre_tokenizer type {:?} is not supported (plumb reads Sequence, Split and ByteLevel)", origin, type);
  }
}

void PreTokenizer::apply(const SplitStep& step, std::string_view piece, std::vector<std::string_view>& out) {
  auto emit = [&](size_t begin, size_t end) {
    if (end > begin) out.push_back(piece.substr(begin, end - begin));
  };
  if (step.behavior == Behavior::isolated) {
    // Every match and every gap is a piece, whatever invert says: the common case, without a match list.
    size_t previous = 0;
    step.regex.find_all(piece, [&](size_t begin, size_t end) {
      emit(previous, begin);
      emit(begin, end);
      previous = end;
    });
    emit(previous, piece.size());
    return;
  }
  struct Part {
    size_t begin, end;
    bool match;
  };
  std::vector<Part> parts;
  size_t previous = 0;
  step.regex.find_all(piece, [&](size_t begin, size_t end) {
    if (previous != begin) parts.push_back({previous, begin, false});
    parts.push_back({begin, end, true});
    previous = end;
  });
  if (previous != piece.size()) parts.push_back({previous, piece.size(), false});
  if (step.invert)
    for (auto& part : parts) part.match = !part.match;
  // Consecutive parts in walk order, each joined to the group before it when join(its match, the previous
  // part's match) holds.
  const auto group = [](auto first, auto last, auto join) {
    std::vector<Part> groups;
    bool previous_match = false;
    for (; first != last; ++first) {
      if (!groups.empty() && join(first->match, previous_match)) {
        groups.back().begin = std::min(groups.back().begin, first->begin);
        groups.back().end = std::max(groups.back().end, first->end);
      } else {
        groups.push_back(*first);
      }
      previous_match = first->match;
    }
    return groups;
  };

  switch (step.behavior) {
    case Behavior::removed:
      for (const auto& part : parts)
        if (!part.match) emit(part.begin, part.end);
      return;
    case Behavior::contiguous:
      for (const auto& g : group(parts.begin(), parts.end(), [](bool match, bool before) { return match == before; }))
        emit(g.begin, g.end);
      return;
    case Behavior::merged_with_previous:
      for (const auto& g : group(parts.begin(), parts.end(), [](bool match, bool before) { return match && !before; }))
        emit(g.begin, g.end);
      return;
    case Behavior::merged_with_next: {
      // Walked back to front, a match joins the part after it.
      const auto groups = group(parts.rbegin(), parts.rend(), [](bool match, bool after) { return match && !after; });
      for (auto it = groups.rbegin(); it != groups.rend(); ++it) emit(it->begin, it->end);
      return;
    }
    case Behavior::isolated:
      return;
  }
}

void PreTokenizer::split(std::string_view text, PreTokenizerScratch& scratch) const {
  scratch.pieces.clear();
  scratch.owned.clear();
  if (!text.empty()) scratch.pieces.push_back(text);
  for (const auto& step : splits_) {
    scratch.next.clear();
    for (const auto piece : scratch.pieces) apply(step, piece, scratch.next);
    std::swap(scratch.pieces, scratch.next);
  }
  if (add_prefix_space_ && byte_level_) {
    for (auto& piece : scratch.pieces) {
      if (piece.front() == ' ') continue;
      std::string& prefixed = scratch.owned.emplace_back(1, ' ');
      prefixed.append(piece);
      piece = prefixed;
    }
  }
  for (const auto& step : byte_level_splits_) {
    scratch.next.clear();
    for (const auto piece : scratch.pieces) apply(step, piece, scratch.next);
    std::swap(scratch.pieces, scratch.next);
  }
}

}  // namespace plumb::text
