// Speculative drafts: who proposes them and how deep. Drafts never change a request's tokens: the target
// verifies each draft as a row of the same round and keeps it only when it equals the token the target itself
// samples there (keyed sampling makes this exact at any temperature). They only save rounds.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace plumb::engine {

// A proposer the engine consults for a stream each round (tests inject ones with known behaviour).
class Drafter {
 public:
  virtual ~Drafter() = default;
  // `tokens`: the stream's prompt and generated ids so far (the last one sampled but not yet in the state).
  virtual std::vector<int32_t> propose(uint64_t request_id, std::span<const int32_t> tokens, int32_t max_depth) = 0;
};
using DrafterFactory = std::function<std::unique_ptr<Drafter>()>;

// Copies from the request's own context: finds the latest earlier occurrence of the longest recent suffix
// (between min_match and max_match tokens) and proposes what followed it.
std::vector<int32_t> context_draft(std::span<const int32_t> tokens, int32_t max_depth, int32_t min_match = 2,
                                   int32_t max_match = 8);

// Chooses a stream's draft depth from measured costs and acceptance, so drafting does not slow a stream:
// depth k is used only if (1 + expected accepted drafts) / (round time + k * row cost) beats 1 / round time.
class DraftDepthPolicy {
 public:
  explicit DraftDepthPolicy(double prior_acceptance = 0.5) : acceptance_(prior_acceptance) {}
  // proposed drafts this round and how many were accepted (in order, stopping at the first rejection)
  void observe(int32_t proposed, int32_t accepted);
  int32_t choose(int32_t max_depth, double round_seconds, double extra_row_seconds) const;
  double acceptance() const { return acceptance_; }

 private:
  double acceptance_;  // estimate of P(draft accepted | the previous one was)
};

// Round cost model t(rows) = fixed + per_row * rows, fitted with exponential forgetting.
class RoundCostModel {
 public:
  void observe(int64_t rows, double seconds);
  double predict(int64_t rows) const { return fixed_ + per_row_ * double(rows); }
  double per_row() const { return per_row_; }
  bool ready() const { return samples_ >= 4; }

 private:
  double s_w_ = 0, s_x_ = 0, s_y_ = 0, s_xx_ = 0, s_xy_ = 0;
  double fixed_ = 0, per_row_ = 0;
  int64_t samples_ = 0;
};

}  // namespace plumb::engine
