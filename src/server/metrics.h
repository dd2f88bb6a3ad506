// GET /metrics: Prometheus text (format 0.0.4). Names follow vLLM's where a counterpart exists, so existing
// dashboards work (vllm:num_requests_running, vllm:time_to_first_token_seconds, ...); the rest are plumb:*.
// Engine-side totals come from Engine::counters() at scrape time; latencies are histograms with fixed buckets
// the server fills when a request finishes.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace plumb::server {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);  // ascending; +Inf is implied
  void observe(double value);

  struct Snapshot {
    std::vector<double> upper_bounds;
    std::vector<uint64_t> cumulative;  // per bound, then +Inf
    uint64_t count = 0;
    double sum = 0;
  };
  Snapshot snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket (not cumulative), last is +Inf
  double sum_ = 0;
};

// What the server records per finished request.
struct FinishedRequest {
  engine::FinishReason reason = engine::FinishReason::finish_stop;
  engine::RequestStats stats;
  std::vector<double> token_gaps_s;  // seconds between consecutive token events, one per token after the first
};

// The server's own gauges, read from its context at scrape time.
struct ServerGauges {
  int32_t requests_in_flight = 0;  // requests holding an engine handle
  int32_t streams_open = 0;        // SSE replies being written
};

class ServerMetrics {
 public:
  ServerMetrics();

  void record(const FinishedRequest& r);
  void http_response(int status);
  void queue_rejected();

  // The exposition text; `engine` may be null while the model loads.
  std::string render(const std::string& model_name, const engine::Engine* engine, ServerGauges gauges = {}) const;

 private:
  Histogram ttft_, itl_, e2e_;
  mutable std::mutex mutex_;
  int64_t prefix_queries_ = 0, prefix_hits_ = 0;
  int64_t queue_rejected_ = 0;
  std::map<int, int64_t> http_responses_;  // by status code
};

// Prometheus label value escaping (backslash, double quote, newline).
std::string escape_label_value(const std::string& v);

}  // namespace plumb::server
