// The streaming reply splitter (deltas joined equal the final parse, whatever the piece boundaries) and the
// Prometheus exposition (histogram buckets and text checked against hand-computed values).
#include <gtest/gtest.h>

#include "server/metrics.h"
#include "server/reply_stream.h"
#include "test_support.h"

namespace plumb::server {
namespace {

const ReplyMarkers kMarkers{"</think>", "<|tools|>"};

struct Joined {
  std::string reasoning, content;
  std::vector<std::string> content_pieces;
};

// Feeds `text` in pieces of `piece` bytes, then finishes with `final_reply`.
Joined split(const std::string& text, size_t piece, bool thinking, const ChatReply& final_reply) {
  ReplySplitter s(kMarkers, thinking);
  Joined j;
  for (size_t i = 0; i < text.size(); i += piece) {
    auto d = s.push(text.substr(i, piece));
    j.reasoning += d.reasoning;
    j.content += d.content;
    if (!d.content.empty()) j.content_pieces.push_back(d.content);
  }
  auto d = s.finish(final_reply);
  j.reasoning += d.reasoning;
  j.content += d.content;
  return j;
}

TEST(ReplySplitter, ThinkingThenContentAtEveryPieceSize) {
  const std::string text = "let me think</think>The answer is 4.";
  const ChatReply final_reply{"let me think", "The answer is 4.", {}};
  for (size_t piece = 1; piece <= text.size(); ++piece) {
    const auto j = split(text, piece, true, final_reply);
    EXPECT_EQ(j.reasoning, "let me think") << "piece " << piece;
    EXPECT_EQ(j.content, "The answer is 4.") << "piece " << piece;
  }
}

TEST(ReplySplitter, MarkerPrefixIsHeldBackNotStreamedAsReasoning) {
  ReplySplitter s(kMarkers, true);
  EXPECT_EQ(s.push("abc</th").reasoning, "abc");
  const auto d = s.push("ink>x");
  EXPECT_EQ(d.reasoning, "");
  EXPECT_EQ(d.content, "x");
  // A near-marker that turns out not to be one is released.
  ReplySplitter t(kMarkers, true);
  EXPECT_EQ(t.push("a</th").reasoning, "a");
  EXPECT_EQ(t.push("e end").reasoning, "</the end");
}

TEST(ReplySplitter, ToolBlockNeverStreamsAndWhitespaceBeforeItIsHeld) {
  const std::string text = "Calling now.\n\n<|tools|>{\"name\":\"f\"}";
  const ChatReply final_reply{"", "Calling now.", {{"f", "{}"}}};
  for (size_t piece = 1; piece <= text.size(); ++piece) {
    const auto j = split(text, piece, false, final_reply);
    EXPECT_EQ(j.content, "Calling now.") << "piece " << piece;
    EXPECT_EQ(j.reasoning, "");
  }
}

TEST(ReplySplitter, TrailingWhitespaceIsReleasedWhenTextFollows) {
  ReplySplitter s(kMarkers, false);
  EXPECT_EQ(s.push("a \n").content, "a");
  EXPECT_EQ(s.push("b").content, " \nb");
}

TEST(ReplySplitter, LengthCutInsideReasoning) {
  const auto j = split("still thinking about it", 3, true, {"still thinking about it", "", {}});
  EXPECT_EQ(j.reasoning, "still thinking about it");
  EXPECT_EQ(j.content, "");
}

TEST(Histogram, BucketsAreCumulativeAndUpperBoundsInclusive) {
  Histogram h({0.1, 1.0});
  for (double v : {0.05, 0.1, 0.5, 1.0, 3.0}) h.observe(v);
  const auto s = h.snapshot();
  EXPECT_EQ(s.cumulative, (std::vector<uint64_t>{2, 4}));
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.sum, 4.65);
}

TEST(Metrics, ExpositionBeforeLoadHasEveryFamilyAtZero) {
  ServerMetrics m;
  m.http_response(200);
  m.http_response(200);
  m.http_response(404);
  const std::string text = m.render("tiny \"q\"", nullptr);
  for (const char* line : {
           "# TYPE vllm:num_requests_running gauge\n",
           "vllm:num_requests_running{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "vllm:num_requests_waiting{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "# TYPE vllm:prompt_tokens_total counter\n",
           "vllm:generation_tokens_total{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "vllm:request_success_total{finished_reason=\"abort\",model_name=\"tiny \\\"q\\\"\"} 0\n",
           "# TYPE vllm:time_to_first_token_seconds histogram\n",
           "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"tiny \\\"q\\\"\"} 0\n",
           "vllm:inter_token_latency_seconds_count{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "vllm:e2e_request_latency_seconds_sum{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "vllm:prefix_cache_queries_total{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "vllm:prefix_cache_hits_total{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "vllm:spec_decode_num_draft_tokens_total{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "vllm:spec_decode_num_accepted_tokens_total{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "plumb:model_loaded{model_name=\"tiny \\\"q\\\"\"} 0\n",
           "plumb:http_responses_total{code=\"200\",model_name=\"tiny \\\"q\\\"\"} 2\n",
           "plumb:http_responses_total{code=\"404\",model_name=\"tiny \\\"q\\\"\"} 1\n",
       })
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line;
}

TEST(Metrics, FinishedRequestsFillHistogramsAndPrefixCounters) {
  ServerMetrics m;
  FinishedRequest r;
  const auto t0 = std::chrono::steady_clock::time_point{} + std::chrono::seconds(100);
  r.stats.submitted = t0;
  r.stats.first_token = t0 + std::chrono::milliseconds(30);
  r.stats.finished = t0 + std::chrono::milliseconds(700);
  r.stats.prompt_tokens = 12;
  r.stats.cached_tokens = 8;
  r.stats.completion_tokens = 3;
  r.token_gaps_s = {0.02, 0.2};
  m.record(r);
  const std::string text = m.render("t", nullptr);
  // 0.03 s lands in (0.02, 0.04]; 0.7 s in (0.5, 0.8]; gaps 0.02 in (0.01, 0.025] and 0.2 in (0.15, 0.2].
  for (const char* line : {
           "vllm:time_to_first_token_seconds_bucket{le=\"0.02\",model_name=\"t\"} 0\n",
           "vllm:time_to_first_token_seconds_bucket{le=\"0.04\",model_name=\"t\"} 1\n",
           "vllm:e2e_request_latency_seconds_bucket{le=\"0.5\",model_name=\"t\"} 0\n",
           "vllm:e2e_request_latency_seconds_bucket{le=\"0.8\",model_name=\"t\"} 1\n",
           "vllm:inter_token_latency_seconds_bucket{le=\"0.01\",model_name=\"t\"} 0\n",
           "vllm:inter_token_latency_seconds_bucket{le=\"0.025\",model_name=\"t\"} 1\n",
           "vllm:inter_token_latency_seconds_bucket{le=\"0.15\",model_name=\"t\"} 1\n",
           "vllm:inter_token_latency_seconds_bucket{le=\"0.2\",model_name=\"t\"} 2\n",
           "vllm:inter_token_latency_seconds_count{model_name=\"t\"} 2\n",
           "vllm:prefix_cache_queries_total{model_name=\"t\"} 12\n",
           "vllm:prefix_cache_hits_total{model_name=\"t\"} 8\n",
       })
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line;
}

}  // namespace
}  // namespace plumb::server
