// The fixed prompts the benchmarks send, so numbers and token hashes compare across runs and machines: a code
// prompt and a chat prompt (bench openai), eight distinct chat prompts that concurrent streams cycle through, and
// token-id prompts of an exact length (bench cache), drawn from a seeded generator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace plumb::bench {

struct NamedPrompt {
  std::string name;
  std::string text;
};

const NamedPrompt& code_prompt();
const NamedPrompt& chat_prompt();
// Stream i of a concurrent cell sends stream_prompt(i); prompts repeat every stream_prompt_count() streams.
const std::string& stream_prompt(size_t i);
size_t stream_prompt_count();

// `count` ids in [lo, hi), a pure function of (seed, count); the length is part of the key, so prompts of two
// lengths are drawn independently (no shared prefix for a prompt cache to find, beyond chance).
std::vector<int32_t> token_prompt(uint64_t seed, int64_t count, int32_t lo, int32_t hi);

}  // namespace plumb::bench
