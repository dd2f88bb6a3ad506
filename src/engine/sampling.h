// Sampling a token from one row of logits. Deterministic by construction: the only randomness is a
// counter-based draw keyed by (seed, position), every sum runs in a fixed order in double, and ties go to the
// lowest token id, so the token depends on this row's logits and (seed, position) alone.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace plumb::engine {

struct SamplingParams {
  double temperature = 1.0;  // 0: greedy
  int32_t top_k = 0;         // 0: off
  double top_p = 1.0;        // 1: off
  double min_p = 0.0;        // 0: off
  std::optional<uint64_t> seed;  // none: derived from the prompt (seed_from_prompt)
};

// Validates ranges; throws plumb::Error naming the field.
void validate(const SamplingParams& p);

// The seed a request without one uses: the first 8 bytes of SHA-256 over its prompt ids.
uint64_t seed_from_prompt(std::span<const int32_t> prompt);

// The sampled token for the sequence position `position` (the position the token will occupy).
int32_t sample_token(std::span<const float> logits, const SamplingParams& p, uint64_t seed, int64_t position);

// Greedy choice: the largest logit, lowest id among equals; NaN logits are never chosen.
int32_t argmax_token(std::span<const float> logits);

struct TokenLogprob {
  int32_t token;
  double logprob;
};
// log-softmax of the raw logits (before temperature) for `token`, and the `top_n` most likely tokens.
TokenLogprob token_logprob(std::span<const float> logits, int32_t token);
std::vector<TokenLogprob> top_logprobs(std::span<const float> logits, int32_t top_n);

}  // namespace plumb::engine
