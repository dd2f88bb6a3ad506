// The request bodies the benchmarks send. Every request asks for exactly max_tokens tokens ("ignore_eos": true,
// vLLM's name, which plumb accepts too), so timings compare like with like and hashes cover the same length.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace plumb::bench {

struct GenerationSettings {
  int64_t max_tokens = 128;
  double temperature = 0;
  uint64_t seed = 1;
  std::optional<bool> draft;  // plumb's extension: sent only when set ("draft": false is the serial path)
};

// POST /v1/chat/completions: one user message.
nlohmann::json chat_body(const std::string& model, const std::string& user_text, const GenerationSettings& s);
// POST /v1/completions: a prompt of token ids.
nlohmann::json completion_body(const std::string& model, std::span<const int32_t> prompt_ids,
                               const GenerationSettings& s);

}  // namespace plumb::bench
