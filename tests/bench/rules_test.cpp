// The arithmetic of the tools, against hand-computed values: the A/B noise rule, medians, the decode and
// aggregate rates, exactness tallies (a missing hash fails, never passes), prompts and port substitution.
#include <gtest/gtest.h>

#include "base/error.h"
#include "bench/ab_bench.h"
#include "bench/concurrent_bench.h"
#include "bench/exactness.h"
#include "bench/noise_rule.h"
#include "bench/prompts.h"
#include "bench/stats.h"
#include "test_support.h"

namespace plumb::bench {
namespace {

using std::chrono::milliseconds;

TEST(NoiseRule, FasterOnlyWhenBothNewRunsBeatBothBaseRunsByMoreThanOnePercent) {
  // tok/s: base 100 and 101; new 102.1 and 103 are above 101 * 1.01 = 102.01.
  auto c = apply_noise_rule({100, 101}, {102.1, 103}, true);
  EXPECT_EQ(c.verdict, NoiseVerdict::faster);
  EXPECT_DOUBLE_EQ(c.ratios[0], 102.1 / 100);
  EXPECT_DOUBLE_EQ(c.ratios[1], 102.1 / 101);
  EXPECT_DOUBLE_EQ(c.ratios[2], 103.0 / 100);
  EXPECT_DOUBLE_EQ(c.ratios[3], 103.0 / 101);
  EXPECT_DOUBLE_EQ(c.ratio_min(), 102.1 / 101);
  EXPECT_DOUBLE_EQ(c.ratio_max(), 1.03);
  // One new run at 102.0 is not past 102.01: within noise, though every new run is faster than every base run.
  EXPECT_EQ(apply_noise_rule({100, 101}, {102.0, 110}, true).verdict, NoiseVerdict::within_noise);
  // One new run only beats one base run.
  EXPECT_EQ(apply_noise_rule({100, 110}, {105, 120}, true).verdict, NoiseVerdict::within_noise);
}

TEST(NoiseRule, SlowerOnlyWhenBothNewRunsAreBelowBothBaseRunsByMoreThanOnePercent) {
  // base 100, 100: slower needs both new below 99.
  EXPECT_EQ(apply_noise_rule({100, 100}, {98.9, 90}, true).verdict, NoiseVerdict::slower);
  EXPECT_EQ(apply_noise_rule({100, 100}, {99.0, 90}, true).verdict, NoiseVerdict::within_noise);
  EXPECT_EQ(apply_noise_rule({100, 100}, {100, 100}, true).verdict, NoiseVerdict::within_noise);
}

TEST(NoiseRule, LowerIsBetterMetricsFlipTheDirection) {
  // TTFT in ms: new 50 and 60 against base 100 and 90: faster (both below 90 * 0.99 = 89.1).
  EXPECT_EQ(apply_noise_rule({100, 90}, {50, 60}, false).verdict, NoiseVerdict::faster);
  EXPECT_EQ(apply_noise_rule({100, 90}, {50, 89.5}, false).verdict, NoiseVerdict::within_noise);
  // new 102 and 103 against base 100 and 100.9: slower (both above 100.9 * 1.01 = 101.909).
  EXPECT_EQ(apply_noise_rule({100, 100.9}, {102, 103}, false).verdict, NoiseVerdict::slower);
  EXPECT_EQ(apply_noise_rule({100, 100.9}, {101.9, 103}, false).verdict, NoiseVerdict::within_noise);
  EXPECT_STREQ(verdict_name(NoiseVerdict::within_noise), "within noise");
}

TEST(Median, OddEvenAndEmpty) {
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({7}), 7.0);
  EXPECT_FALSE(median({}).has_value());
}

StreamedReply reply_at(Clock::time_point t0, int first_ms, int last_ms, int64_t tokens) {
  StreamedReply r;
  r.ok = true;
  r.sent = t0;
  r.first_piece = t0 + milliseconds(first_ms);
  r.last_piece = t0 + milliseconds(last_ms);
  r.completion_tokens = tokens;
  return r;
}

TEST(Rates, DecodeIsTokensMinusOneOverFirstToLastPiece) {
  const auto t0 = Clock::now();
  const auto r = reply_at(t0, 100, 600, 11);  // 10 tokens after the first in 0.5 s
  EXPECT_DOUBLE_EQ(*r.decode_tok_s(), 20.0);
  EXPECT_DOUBLE_EQ(*r.ttft_s(), 0.1);
  EXPECT_FALSE(reply_at(t0, 100, 100, 1).decode_tok_s().has_value());
  StreamedReply no_usage = reply_at(t0, 0, 1000, 0);
  no_usage.completion_tokens.reset();
  no_usage.pieces = 5;  // without usage, pieces count as tokens
  EXPECT_DOUBLE_EQ(*no_usage.decode_tok_s(), 4.0);
}

TEST(Rates, AggregateSumsTokensMinusOneOverTheWholeSpan) {
  const auto t0 = Clock::now();
  // (11 - 1) + (21 - 1) = 30 tokens from 100 ms (earliest first) to 1100 ms (latest last): 30 tok/s.
  std::vector<StreamedReply> replies = {reply_at(t0, 100, 600, 11), reply_at(t0, 300, 1100, 21)};
  EXPECT_DOUBLE_EQ(*aggregate_tok_s(replies), 30.0);
  replies.push_back(reply_at(t0, 0, 5000, 100));
  replies.back().ok = false;  // a failed stream does not count
  EXPECT_DOUBLE_EQ(*aggregate_tok_s(replies), 30.0);
}

TEST(Exactness, OnlyTwoPresentEqualHashesPass) {
  StreamedReply a, b;
  a.ok = b.ok = true;
  a.token_sha256 = "ab";
  b.token_sha256 = "ab";
  EXPECT_EQ(compare_replies(a, b), Match::equal);
  b.token_sha256 = "cd";
  EXPECT_EQ(compare_replies(a, b), Match::unequal);
  b.token_sha256.reset();
  EXPECT_EQ(compare_replies(a, b), Match::failed);
  EXPECT_EQ(compare_replies(b, b), Match::failed);  // two missing hashes are not equal hashes
  b.token_sha256 = "ab";
  b.ok = false;
  EXPECT_EQ(compare_replies(a, b), Match::failed);

  Tally t;
  EXPECT_EQ(t.text(), "-");
  for (int i = 0; i < 3; ++i) t.add(Match::equal);
  EXPECT_EQ(t.text(), "equal 3/3");
  t.add(Match::unequal);
  t.add(Match::failed);
  EXPECT_EQ(t.text(), "unequal 1/5, failed 1/5");
  EXPECT_FALSE(t.all_equal());
}

TEST(Prompts, TokenPromptsAreSeededInRangeAndDifferByLength) {
  const auto a = token_prompt(1, 64, 100, 900);
  EXPECT_EQ(a, token_prompt(1, 64, 100, 900));
  EXPECT_NE(a, token_prompt(2, 64, 100, 900));
  for (int32_t id : a) {
    EXPECT_GE(id, 100);
    EXPECT_LT(id, 900);
  }
  const auto b = token_prompt(1, 128, 100, 900);
  EXPECT_NE(std::vector<int32_t>(b.begin(), b.begin() + 64), a);
  EXPECT_THROW(token_prompt(1, 4, 5, 5), Error);
}

TEST(SubstitutePort, EveryPlaceholderIsReplaced) {
  EXPECT_EQ(substitute_port("serve --port {port} --tag p{port}", 8123), "serve --port 8123 --tag p8123");
  EXPECT_EQ(substitute_port("serve --port $PORT", 8123), "serve --port $PORT");
}

}  // namespace
}  // namespace plumb::bench
