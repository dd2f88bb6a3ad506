#include "engine/sampling.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>

#include "base/error.h"
#include "base/rng.h"
#include "base/sha256.h"
#include "kernels/control.h"

namespace plumb::engine {
namespace {

const kernels::ControlId kGreedyTiesToHighestId = kernels::register_control(
    "sampling", "greedy_ties_to_highest_id", "greedy picks the highest id among equal largest logits");
const kernels::ControlId kTemperatureIgnored =
    kernels::register_control("sampling", "temperature_ignored", "logits are sampled at temperature 1");
const kernels::ControlId kDrawKeyedByCall = kernels::register_control(
    "sampling", "draw_keyed_by_call", "the draw is keyed by a call counter instead of the position");
std::atomic<uint64_t> g_calls{0};

// The uniform draw of a sampled position.
double draw(uint64_t seed, int64_t position) {
  if (kernels::planted(kDrawKeyedByCall)) return keyed_uniform(seed, g_calls.fetch_add(1));
  return keyed_uniform(seed, uint64_t(position));
}

// Order of candidates: larger logit first, then lower id. NaN sorts last.
bool before(float la, int32_t a, float lb, int32_t b) {
  const bool na = std::isnan(la), nb = std::isnan(lb);
  if (na != nb) return nb;
  if (!na && la != lb) return la > lb;
  return a < b;
}

double log_sum_exp(std::span<const float> logits, double max_logit) {
  double sum = 0;
  for (float l : logits)
    if (!std::isnan(l)) sum += std::exp(double(l) - max_logit);
  return max_logit + std::log(sum);
}

// Plain softmax sampling needs no ordering: sum in id order.
int32_t sample_unfiltered(std::span<const float> logits, double temperature, uint64_t seed, int64_t position) {
  float max_logit = -std::numeric_limits<float>::infinity();
  for (float l : logits)
    if (!std::isnan(l)) max_logit = std::max(max_logit, l);
  if (!(max_logit > -std::numeric_limits<float>::infinity())) return argmax_token(logits);
  const double max_scaled = double(max_logit) / temperature;
  std::vector<double> prob(logits.size(), 0.0);
  double total = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    if (std::isnan(logits[i])) continue;
    prob[i] = std::exp(double(logits[i]) / temperature - max_scaled);
    total += prob[i];
  }
  const double target = draw(seed, position) * total;
  double cum = 0;
  int32_t last = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    if (prob[i] == 0.0) continue;
    cum += prob[i];
    last = int32_t(i);
    if (target < cum) return last;
  }
  return last;
}

}  // namespace

void validate(const SamplingParams& p) {
  if (!(p.temperature >= 0.0) || !std::isfinite(p.temperature)) fail("temperature must be >= 0, got {}", p.temperature);
  if (p.top_k < 0) fail("top_k must be >= 0, got {}", p.top_k);
  if (!(p.top_p > 0.0 && p.top_p <= 1.0)) fail("top_p must be in (0, 1], got {}", p.top_p);
  if (!(p.min_p >= 0.0 && p.min_p <= 1.0)) fail("min_p must be in [0, 1], got {}", p.min_p);
}

uint64_t seed_from_prompt(std::span<const int32_t> prompt) {
  Sha256 h;
  for (int32_t id : prompt) {
    const uint32_t v = uint32_t(id);
    const uint8_t le[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    h.update(le, 4);
  }
  const auto d = h.finish();
  uint64_t seed = 0;
  for (int i = 0; i < 8; ++i) seed |= uint64_t(d[i]) << (8 * i);
  return seed;
}

int32_t argmax_token(std::span<const float> logits) {
  const bool ties_high = kernels::planted(kGreedyTiesToHighestId);
  int32_t best = -1;
  for (int32_t i = 0; i < int32_t(logits.size()); ++i) {
    if (std::isnan(logits[i])) continue;
    if (best < 0 || logits[i] > logits[best] || (ties_high && logits[i] == logits[best])) best = i;
  }
  if (best < 0) fail("sampling: every logit is NaN");
  return best;
}

int32_t sample_token(std::span<const float> logits, const SamplingParams& params, uint64_t seed, int64_t position) {
  if (params.temperature == 0.0) return argmax_token(logits);
  SamplingParams p = params;
  if (kernels::planted(kTemperatureIgnored)) p.temperature = 1.0;
  const int32_t vocab = int32_t(logits.size());
  if (p.top_k == 0 && p.top_p >= 1.0 && p.min_p == 0.0) return sample_unfiltered(logits, p.temperature, seed, position);

  // Candidates in (logit desc, id asc) order; top-k keeps the first k.
  std::vector<int32_t> ids(vocab);
  std::iota(ids.begin(), ids.end(), 0);
  auto order = [&](int32_t a, int32_t b) { return before(logits[a], a, logits[b], b); };
  size_t keep = ids.size();
  if (p.top_k > 0 && p.top_k < vocab) {
    keep = size_t(p.top_k);
    std::partial_sort(ids.begin(), ids.begin() + keep, ids.end(), order);
  } else {
    std::sort(ids.begin(), ids.end(), order);
  }
  while (keep > 0 && std::isnan(logits[ids[keep - 1]])) --keep;
  if (keep == 0) fail("sampling: every logit is NaN");

  // Softmax at temperature, in double, summed in candidate order.
  const double max_scaled = double(logits[ids[0]]) / p.temperature;
  std::vector<double> prob(keep);
  double total = 0;
  for (size_t i = 0; i < keep; ++i) {
    prob[i] = std::exp(double(logits[ids[i]]) / p.temperature - max_scaled);
    total += prob[i];
  }
  // min-p: drop candidates below min_p times the most likely one (prob[0] is the largest).
  if (p.min_p > 0.0) {
    const double floor = p.min_p * prob[0];
    size_t n = 1;
    while (n < keep && prob[n] >= floor) ++n;
    keep = n;
    total = std::accumulate(prob.begin(), prob.begin() + keep, 0.0);
  }
  // top-p: the shortest prefix whose mass reaches top_p.
  if (p.top_p < 1.0) {
    double cum = 0;
    size_t n = 0;
    while (n < keep) {
      cum += prob[n++];
      if (cum >= p.top_p * total) break;
    }
    keep = n;
    total = std::accumulate(prob.begin(), prob.begin() + keep, 0.0);
  }
  const double target = draw(seed, position) * total;
  double cum = 0;
  for (size_t i = 0; i < keep; ++i) {
    cum += prob[i];
    if (target < cum) return ids[i];
  }
  return ids[keep - 1];
}

TokenLogprob token_logprob(std::span<const float> logits, int32_t token) {
  float max_logit = -std::numeric_limits<float>::infinity();
  for (float l : logits)
    if (!std::isnan(l)) max_logit = std::max(max_logit, l);
  const double lse = log_sum_exp(logits, max_logit);
  return {token, double(logits[token]) - lse};
}

std::vector<TokenLogprob> top_logprobs(std::span<const float> logits, int32_t top_n) {
  const int32_t vocab = int32_t(logits.size());
  top_n = std::clamp(top_n, 0, vocab);
  std::vector<int32_t> ids(vocab);
  std::iota(ids.begin(), ids.end(), 0);
  std::partial_sort(ids.begin(), ids.begin() + top_n, ids.end(),
                    [&](int32_t a, int32_t b) { return before(logits[a], a, logits[b], b); });
  float max_logit = -std::numeric_limits<float>::infinity();
  for (float l : logits)
    if (!std::isnan(l)) max_logit = std::max(max_logit, l);
  const double lse = log_sum_exp(logits, max_logit);
  std::vector<TokenLogprob> out;
  for (int32_t i = 0; i < top_n; ++i) out.push_back({ids[i], double(logits[ids[i]]) - lse});
  return out;
}

}  // namespace plumb::engine
