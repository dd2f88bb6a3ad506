#include "bench/prompts.h"

#include "base/error.h"
#include "base/rng.h"

namespace plumb::bench {

const NamedPrompt& code_prompt() {
  static const NamedPrompt p{
      "code",
      "Write a Python function merge_intervals(intervals) that takes a list of [start, end] pairs, merges every "
      "pair that overlaps or touches, and returns the merged list sorted by start. Add a docstring and three "
      "doctest examples, then explain its running time."};
  return p;
}

const NamedPrompt& chat_prompt() {
  static const NamedPrompt p{
      "chat",
      "I am planning a three-day walking trip through the hills near a small coastal town in late autumn. What "
      "should I pack, how far can a beginner comfortably walk each day, and what should I do if the weather "
      "turns bad halfway through a route?"};
  return p;
}

namespace {
const std::vector<std::string>& stream_prompts() {
  static const std::vector<std::string> prompts = {
      "Explain how a hash table handles collisions.",
      "Write a haiku about a lighthouse in fog.",
      "What is the difference between a process and a thread?",
      "Give three tips for keeping houseplants alive in winter.",
      "Summarize the rules of chess in a short paragraph.",
      "Write a C function that reverses a singly linked list.",
      "Why is the sky blue? Answer for a ten-year-old.",
      "List five prime numbers greater than one hundred and say how you checked them.",
  };
  return prompts;
}
}  // namespace

const std::string& stream_prompt(size_t i) { return stream_prompts()[i % stream_prompts().size()]; }
size_t stream_prompt_count() { return stream_prompts().size(); }

std::vector<int32_t> token_prompt(uint64_t seed, int64_t count, int32_t lo, int32_t hi) {
  if (lo < 0 || hi <= lo) fail("token ids: the range [{}, {}) is empty", lo, hi);
  std::vector<int32_t> ids(static_cast<size_t>(count));
  // The length is part of the key (the generator's stream word), so prompts of different lengths differ from id 0.
  for (int64_t i = 0; i < count; ++i) {
    const auto r = philox4x32_10({uint32_t(i), uint32_t(uint64_t(i) >> 32), uint32_t(count), uint32_t(uint64_t(count) >> 32)},
                                 {uint32_t(seed), uint32_t(seed >> 32)});
    ids[size_t(i)] = lo + int32_t(r[0] % uint32_t(hi - lo));
  }
  return ids;
}

}  // namespace plumb::bench
