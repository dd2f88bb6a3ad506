// Sampling: greedy ties, filters, and that draws follow the softmax (hand-computed probabilities).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/error.h"
#include "engine/sampling.h"

namespace plumb::engine {
namespace {

TEST(Sampling, GreedyTakesLargestLowestIdOnTies) {
  const std::vector<float> l = {1.0f, 3.0f, 3.0f, -2.0f};
  EXPECT_EQ(argmax_token(l), 1);
  SamplingParams p;
  p.temperature = 0;
  EXPECT_EQ(sample_token(l, p, 1, 5), 1);
  const std::vector<float> with_nan = {NAN, 0.5f, 0.25f};
  EXPECT_EQ(argmax_token(with_nan), 1);
}

TEST(Sampling, TopKOneIsGreedy) {
  const std::vector<float> l = {0.1f, 2.0f, 2.0f, 1.9f};
  SamplingParams p;
  p.top_k = 1;
  for (int64_t pos = 0; pos < 200; ++pos) EXPECT_EQ(sample_token(l, p, 99, pos), 1);
}

// probs proportional to exp(logit): logits log(5), log(3), log(2) give 0.5, 0.3, 0.2.
std::vector<int> counts(const SamplingParams& p, int draws) {
  const std::vector<float> l = {std::log(5.0f), std::log(3.0f), std::log(2.0f)};
  std::vector<int> c(3, 0);
  for (int i = 0; i < draws; ++i) c[size_t(sample_token(l, p, 1234, i))]++;
  return c;
}

TEST(Sampling, FollowsTheSoftmax) {
  SamplingParams p;
  const auto c = counts(p, 20000);
  EXPECT_NEAR(c[0] / 20000.0, 0.5, 0.02);  // statistical check of the draw, not an exactness claim
  EXPECT_NEAR(c[1] / 20000.0, 0.3, 0.02);
  EXPECT_NEAR(c[2] / 20000.0, 0.2, 0.02);
}

TEST(Sampling, TopPKeepsTheShortestPrefixReachingP) {
  SamplingParams p;
  p.top_p = 0.5;  // 0.5 alone reaches it
  auto c = counts(p, 2000);
  EXPECT_EQ(c[0], 2000);
  p.top_p = 0.6;  // needs 0.5 + 0.3; then renormalised 5:3
  c = counts(p, 20000);
  EXPECT_EQ(c[2], 0);
  EXPECT_NEAR(c[0] / 20000.0, 0.625, 0.02);
}

TEST(Sampling, MinPDropsUnlikelyTokens) {
  SamplingParams p;
  p.min_p = 0.5;  // keep p >= 0.25: tokens 0 and 1
  const auto c = counts(p, 5000);
  EXPECT_EQ(c[2], 0);
  EXPECT_GT(c[1], 0);
}

TEST(Sampling, TemperatureSharpens) {
  SamplingParams p;
  p.temperature = 0.5;  // probs ~ 25:9:4
  const auto c = counts(p, 20000);
  EXPECT_NEAR(c[0] / 20000.0, 25.0 / 38.0, 0.02);
}

TEST(Sampling, DrawIsKeyedBySeedAndPosition) {
  std::vector<float> l(50);
  for (size_t i = 0; i < l.size(); ++i) l[i] = float(i % 7) * 0.3f;
  SamplingParams p;
  for (int64_t pos = 0; pos < 50; ++pos) EXPECT_EQ(sample_token(l, p, 7, pos), sample_token(l, p, 7, pos));
  int differ = 0;
  for (int64_t pos = 0; pos < 50; ++pos) differ += sample_token(l, p, 7, pos) != sample_token(l, p, 8, pos);
  EXPECT_GT(differ, 10);
}

TEST(Sampling, LogprobsAreLogSoftmax) {
  const std::vector<float> l = {std::log(5.0f), std::log(3.0f), std::log(2.0f)};
  EXPECT_NEAR(token_logprob(l, 1).logprob, std::log(0.3), 1e-6);
  const auto top = top_logprobs(l, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].token, 0);
  EXPECT_EQ(top[1].token, 1);
  EXPECT_NEAR(top[0].logprob, std::log(0.5), 1e-6);
}

TEST(Sampling, RejectsBadValues) {
  SamplingParams p;
  p.temperature = -1;
  EXPECT_THROW(validate(p), Error);
  p = {};
  p.top_p = 0;
  EXPECT_THROW(validate(p), Error);
  p = {};
  p.top_k = -2;
  EXPECT_THROW(validate(p), Error);
}

}  // namespace
}  // namespace plumb::engine
