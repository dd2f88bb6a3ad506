// Builds the tiny tokenizer.json: split the built-in text into words, learn merges by counting adjacent
// token pairs (most frequent first; ties to the smaller left id, then the smaller right id), stop when the
// byte tokens, merged tokens and special tokens fill vocab_size, and write the file with ordered keys.
#include "text/tiny_tokenizer.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <map>
#include <unordered_map>

#include "base/error.h"
#include "text/byte_level.h"
#include "text/tiny_tokenizer_corpus.h"

namespace plumb::text {
namespace {

using ordered_json = nlohmann::ordered_json;

// The DeepSeek-V4 special strings with the flags the real tokenizer.json gives them.
struct SpecialSpec {
  std::string_view content;
  bool special;
  bool normalized;
};
const std::vector<SpecialSpec>& special_specs() {
  static const std::vector<SpecialSpec> specs = {
      {"<｜begin▁of▁sentence｜>", true, false}, {"<｜end▁of▁sentence｜>", true, false},
      {"<｜User｜>", false, true},              {"<｜Assistant｜>", false, true},
      {"<think>", false, false},               {"</think>", false, false},
      {"｜DSML｜", false, false},               {"<｜latest_reminder｜>", false, false},
      {"<｜action｜>", false, false},           {"<｜query｜>", false, false},
      {"<｜authority｜>", false, false},        {"<｜domain｜>", false, false},
      {"<｜title｜>", false, false},            {"<｜read_url｜>", false, false},
      {"<｜extracted_url｜>", false, false},
  };
  return specs;
}

// DeepSeek-V4's pre-tokenizer regexes (digits in threes, CJK runs, then a GPT-4-like word split).
constexpr const char* kDigitsRegex = R"(\p{N}{1,3})";
constexpr const char* kCjkRegex = "[一-龥぀-ゟ゠-ヿ]+";
constexpr const char* kWordRegex =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| "
    "?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";

// Training words: a rough byte-class split (the merges only need to be valid, not identical to what the
// regexes would cut), plus every number 0..999 once, as the digit regex cuts numbers into such pieces.
std::map<std::string, int> training_words(std::string_view text) {
  std::map<std::string, int> words;
  auto is_letter = [](unsigned char c) { return std::isalpha(c) || c >= 0x80; };
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    const auto c = static_cast<unsigned char>(text[i]);
    const bool lead_space = c == ' ' && i + 1 < text.size();
    const size_t body = lead_space ? i + 1 : i;
    const auto b = static_cast<unsigned char>(text[body]);
    if (is_letter(b)) {
      j = body;
      while (j < text.size() && is_letter(static_cast<unsigned char>(text[j]))) ++j;
    } else if (std::isdigit(b) && !lead_space) {
      while (j < text.size() && j - i < 3 && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    } else if (std::ispunct(b)) {
      j = body;
      while (j < text.size() && std::ispunct(static_cast<unsigned char>(text[j]))) ++j;
    } else {
      const bool newline = c == '\n';
      while (j < text.size() && (text[j] == '\n') == newline && std::isspace(static_cast<unsigned char>(text[j])))
        ++j;
    }
    if (j == i) j = i + 1;
    ++words[std::string(text.substr(i, j - i))];
    i = j;
  }
  for (int n = 0; n < 1000; ++n) ++words[std::to_string(n)];
  return words;
}

struct Trained {
  std::vector<std::string> tokens;  // byte-level text by id
  std::vector<std::pair<int, int>> merges;
};

// Learns merges until `model_size` tokens exist (or, with model_size < 0, until no pair is left).
Trained train(int model_size) {
  Trained t;
  std::unordered_map<std::string, int> token_ids;
  for (int b = 0; b < 256; ++b) {
    t.tokens.push_back(byte_level_utf8(uint8_t(b)));
    token_ids[t.tokens.back()] = b;
  }
  std::vector<std::pair<std::vector<int>, int>> words;  // symbols, count
  for (const auto& [word, count] : training_words(tiny_tokenizer_corpus())) {
    std::vector<int> symbols;
    for (unsigned char c : word) symbols.push_back(c);
    words.emplace_back(std::move(symbols), count);
  }
  while (model_size < 0 || int(t.tokens.size()) < model_size) {
    std::unordered_map<uint64_t, int> pair_counts;
    for (const auto& [symbols, count] : words)
      for (size_t i = 0; i + 1 < symbols.size(); ++i)
        pair_counts[(uint64_t(symbols[i]) << 32) | uint32_t(symbols[i + 1])] += count;
    if (pair_counts.empty()) {
      if (model_size < 0) break;
      fail("tiny tokenizer: the built-in training text supports a vocab_size of at most {}, {} was asked",
           t.tokens.size() + special_specs().size(), model_size + special_specs().size());
    }
    // The order is total (count, then the packed (left, right) key), so hash order cannot change the winner.
    auto best = pair_counts.begin();
    for (auto it = pair_counts.begin(); it != pair_counts.end(); ++it)
      if (it->second > best->second || (it->second == best->second && it->first < best->first)) best = it;
    const int left = int(best->first >> 32), right = int(uint32_t(best->first));
    const std::string merged = t.tokens[left] + t.tokens[right];
    auto [slot, inserted] = token_ids.try_emplace(merged, int(t.tokens.size()));
    if (inserted) t.tokens.push_back(merged);
    const int new_id = slot->second;
    t.merges.emplace_back(left, right);
    for (auto& [symbols, count] : words) {
      std::vector<int> out;
      out.reserve(symbols.size());
      for (size_t i = 0; i < symbols.size(); ++i) {
        if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
          out.push_back(new_id);
          ++i;
        } else {
          out.push_back(symbols[i]);
        }
      }
      symbols = std::move(out);
    }
  }
  return t;
}

ordered_json split_regex(const char* regex) {
  ordered_json split;
  split["type"] = "Split";
  split["pattern"] = {{"Regex", regex}};
  split["behavior"] = "Isolated";
  split["invert"] = false;
  return split;
}

ordered_json byte_level(bool add_prefix_space, bool trim_offsets, bool use_regex) {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", add_prefix_space},
          {"trim_offsets", trim_offsets},
          {"use_regex", use_regex}};
}

}  // namespace

int tiny_tokenizer_min_vocab_size() { return 256 + int(special_specs().size()); }

int tiny_tokenizer_max_vocab_size() {
  static const int max_size = int(train(-1).tokens.size() + special_specs().size());
  return max_size;
}

const std::vector<std::string_view>& tiny_tokenizer_special_tokens() {
  static const std::vector<std::string_view> tokens = [] {
    std::vector<std::string_view> out;
    for (const auto& s : special_specs()) out.push_back(s.content);
    return out;
  }();
  return tokens;
}

std::string tiny_tokenizer_json(int vocab_size) {
  const int min_size = tiny_tokenizer_min_vocab_size();
  if (vocab_size < min_size) {
    fail("tiny tokenizer: vocab_size {} is too small: 256 byte tokens and {} special tokens need at least {}",
         vocab_size, special_specs().size(), min_size);
  }
  const int model_size = vocab_size - int(special_specs().size());
  const Trained trained = train(model_size);

  ordered_json added = ordered_json::array();
  for (size_t i = 0; i < special_specs().size(); ++i) {
    const auto& s = special_specs()[i];
    added.push_back({{"id", model_size + int(i)},
                     {"content", s.content},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", s.normalized},
                     {"special", s.special}});
  }
  ordered_json vocab = ordered_json::object();
  for (size_t id = 0; id < trained.tokens.size(); ++id) vocab[trained.tokens[id]] = id;
  ordered_json merges = ordered_json::array();
  for (const auto& [left, right] : trained.merges) merges.push_back({trained.tokens[left], trained.tokens[right]});

  ordered_json model;
  model["type"] = "BPE";
  model["dropout"] = nullptr;
  model["unk_token"] = nullptr;
  model["continuing_subword_prefix"] = nullptr;
  model["end_of_word_suffix"] = nullptr;
  model["fuse_unk"] = false;
  model["byte_fallback"] = false;
  model["ignore_merges"] = false;
  model["vocab"] = std::move(vocab);
  model["merges"] = std::move(merges);

  ordered_json file;
  file["version"] = "1.0";
  file["truncation"] = nullptr;
  file["padding"] = nullptr;
  file["added_tokens"] = std::move(added);
  file["normalizer"] = nullptr;
  file["pre_tokenizer"] = {{"type", "Sequence"},
                           {"pretokenizers",
                            {split_regex(kDigitsRegex), split_regex(kCjkRegex), split_regex(kWordRegex),
                             byte_level(false, true, false)}}};
  file["post_processor"] = byte_level(true, false, true);
  file["decoder"] = byte_level(true, true, true);
  file["model"] = std::move(model);
  return file.dump(1) + "\n";
}

std::string tiny_tokenizer_config_json() {
  auto token = [](std::string_view content) {
    return ordered_json{{"__type", "AddedToken"}, {"content", content}, {"lstrip", false},
                        {"normalized", true},     {"rstrip", false},    {"single_word", false}};
  };
  ordered_json config;
  config["add_bos_token"] = false;
  config["add_eos_token"] = false;
  config["bos_token"] = token(special_specs()[0].content);
  config["clean_up_tokenization_spaces"] = false;
  config["eos_token"] = token(special_specs()[1].content);
  config["legacy"] = true;
  config["model_max_length"] = 1048576;
  config["pad_token"] = token(special_specs()[1].content);
  config["sp_model_kwargs"] = ordered_json::object();
  config["unk_token"] = nullptr;
  config["tokenizer_class"] = "PreTrainedTokenizerFast";
  return config.dump(2) + "\n";
}

}  // namespace plumb::text
