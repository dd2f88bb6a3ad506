// The tokenizer of plumb's built-in tiny model: a complete HF-format tokenizer.json that plumb's loader (and
// the HF tokenizers library) reads like any other. It is a small byte-level BPE: 256 byte tokens, then merges
// learned by a deterministic BPE training on a built-in English/code paragraph, then the DeepSeek-V4 special
// tokens (BOS, EOS, <｜User｜>, <｜Assistant｜>, <think>, </think>, ｜DSML｜, <｜latest_reminder｜>, the task tokens)
// as added tokens at the END of the id range, so the total is exactly vocab_size ids. Its pre-tokenizer is
// the same family as DeepSeek-V4's (a Sequence of Split regexes, then ByteLevel) and its decoder is ByteLevel.
// Same vocab_size, byte-identical output.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace plumb::text {

// The smallest and largest vocab_size the built-in training text supports.
int tiny_tokenizer_min_vocab_size();
int tiny_tokenizer_max_vocab_size();

// The tokenizer.json text; throws plumb::Error when vocab_size is outside the supported range.
std::string tiny_tokenizer_json(int vocab_size);

// A tokenizer_config.json naming the BOS and EOS strings (no BOS is added by the tokenizer itself: the chat
// encoding writes it).
std::string tiny_tokenizer_config_json();

// The special-token strings placed at the end of the id range, in id order.
const std::vector<std::string_view>& tiny_tokenizer_special_tokens();

}  // namespace plumb::text
