// Shared by the engine exactness tests: a varied set of requests, and runners that serve them alone or
// together so a test can compare token ids and token_sha256 exactly. Model-agnostic: tests pass a factory.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "engine/engine.h"

namespace plumb::test {

using ModelFactory = std::function<std::unique_ptr<model::Model>()>;

struct Outcome {
  std::vector<int32_t> tokens;
  std::string sha;
  engine::FinishReason reason;
  bool operator==(const Outcome&) const = default;
};

inline Outcome outcome_of(const engine::RequestEvent& all) {
  Outcome o;
  for (const auto& t : all.tokens) o.tokens.push_back(t.id);
  o.sha = all.stats.token_sha256;
  o.reason = all.reason;
  return o;
}

// n requests with different prompts, lengths, temperatures, top-k/p, min-p, seeds and max_tokens.
inline std::vector<engine::GenerationRequest> varied_requests(int n, int32_t vocab, int min_prompt, int max_prompt,
                                                              int max_new, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  std::vector<engine::GenerationRequest> out;
  for (int i = 0; i < n; ++i) {
    engine::GenerationRequest r;
    const int len = min_prompt + int(rng() % uint32_t(max_prompt - min_prompt + 1));
    for (int k = 0; k < len; ++k) r.prompt.push_back(int32_t(rng() % uint32_t(vocab)));
    const double temps[] = {0.0, 0.7, 1.0, 1.3};
    r.sampling.temperature = temps[i % 4];
    if (i % 3 == 1) r.sampling.top_k = 5 + i;
    if (i % 5 == 2) r.sampling.top_p = 0.8;
    if (i % 7 == 3) r.sampling.min_p = 0.05;
    if (i % 2 == 0) r.sampling.seed = 1000 + uint64_t(i);
    r.stop.max_tokens = 1 + int32_t(rng() % uint32_t(max_new));
    r.stop.ignore_eos = true;
    out.push_back(std::move(r));
  }
  return out;
}

inline Outcome run_alone(const ModelFactory& make, const engine::GenerationRequest& req, engine::EngineConfig cfg) {
  auto model = make();
  cfg.parallel = 1;
  cfg.max_rows_per_round = std::max(cfg.max_rows_per_round, 1);
  engine::Engine eng(*model, cfg);
  auto h = eng.submit(req);
  eng.run_until_idle();
  return outcome_of(h->wait_all());
}

// Serves every request in one engine; submit_round[i] is the round before which request i is submitted.
inline std::vector<Outcome> run_together(const ModelFactory& make, const std::vector<engine::GenerationRequest>& reqs,
                                         engine::EngineConfig cfg, const std::vector<int>& submit_round = {},
                                         const std::vector<size_t>& order = {}) {
  auto model = make();
  engine::Engine eng(*model, cfg);
  std::vector<std::shared_ptr<engine::RequestHandle>> handles(reqs.size());
  std::vector<size_t> idx = order;
  if (idx.empty())
    for (size_t i = 0; i < reqs.size(); ++i) idx.push_back(i);
  size_t submitted = 0;
  for (int round = 0; submitted < idx.size() || eng.counters().running || eng.counters().waiting; ++round) {
    for (size_t k = 0; k < idx.size(); ++k) {
      const size_t i = idx[k];
      const int when = submit_round.empty() ? 0 : submit_round[i];
      if (!handles[i] && when <= round) {
        handles[i] = eng.submit(reqs[i]);
        ++submitted;
      }
    }
    eng.step();
  }
  std::vector<Outcome> out;
  for (auto& h : handles) out.push_back(outcome_of(h->wait_all()));
  return out;
}

}  // namespace plumb::test
