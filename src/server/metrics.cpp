#include "server/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace plumb::server {
namespace {

// Bucket bounds in seconds: fine where interactive latencies live, coarse out to long generations.
const std::vector<double> kTtftBuckets = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
                                          0.75,  1.0,   2.5,  5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0};
const std::vector<double> kItlBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15,
                                         0.2,   0.3,    0.4,   0.5,  0.75,  1.0,  2.5,   5.0, 10.0};
const std::vector<double> kE2eBuckets = {0.05, 0.1,  0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,  5.0,
                                         10.0, 15.0, 20.0, 30.0, 60.0, 120.0, 240.0, 480.0, 960.0};

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Label values by FinishReason, in vLLM's words where it has them.
const char* finished_reason_label(engine::FinishReason reason) {
  switch (reason) {
    case engine::FinishReason::finish_stop: return "stop";
    case engine::FinishReason::finish_length: return "length";
    case engine::FinishReason::finish_cancelled: return "abort";
    case engine::FinishReason::finish_error: return "error";
  }
  return "error";
}

class Writer {
 public:
  explicit Writer(std::string model) : labels_(fmt::format("model_name=\"{}\"", escape_label_value(model))) {}

  void header(const std::string& name, const char* type, const char* help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(const std::string& name, double value, const std::string& extra_labels = {}) {
    const std::string labels = extra_labels.empty() ? labels_ : extra_labels + "," + labels_;
    out_ += fmt::format("{}{{{}}} {}\n", name, labels, value);
  }
  void scalar(const std::string& name, const char* type, const char* help, double value) {
    header(name, type, help);
    sample(name, value);
  }
  void histogram(const std::string& name, const char* help, const Histogram::Snapshot& s) {
    header(name, "histogram", help);
    for (size_t i = 0; i < s.upper_bounds.size(); ++i)
      sample(name + "_bucket", double(s.cumulative[i]), fmt::format("le=\"{}\"", s.upper_bounds[i]));
    sample(name + "_bucket", double(s.count), "le=\"+Inf\"");
    sample(name + "_count", double(s.count));
    sample(name + "_sum", s.sum);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string labels_;
  std::string out_;
};

}  // namespace

std::string escape_label_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  const size_t bucket = size_t(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  std::lock_guard lock(mutex_);
  counts_[bucket]++;
  sum_ += value;
}

Histogram::Snapshot Histogram::snapshot() const {
  std::lock_guard lock(mutex_);
  Snapshot s;
  s.upper_bounds = bounds_;
  uint64_t running = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    running += counts_[i];
    if (i < bounds_.size()) s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_;
  return s;
}

ServerMetrics::ServerMetrics() : ttft_(kTtftBuckets), itl_(kItlBuckets), e2e_(kE2eBuckets) {}

void ServerMetrics::record(const FinishedRequest& r) {
  const auto& st = r.stats;
  if (st.completion_tokens > 0) ttft_.observe(seconds(st.first_token - st.submitted));
  for (double gap : r.token_gaps_s) itl_.observe(gap);
  e2e_.observe(seconds(st.finished - st.submitted));
  std::lock_guard lock(mutex_);
  prefix_queries_ += st.prompt_tokens;
  prefix_hits_ += st.cached_tokens;
}

void ServerMetrics::http_response(int status) {
  std::lock_guard lock(mutex_);
  http_responses_[status]++;
}

void ServerMetrics::queue_rejected() {
  std::lock_guard lock(mutex_);
  queue_rejected_++;
}

std::string ServerMetrics::render(const std::string& model_name, const engine::Engine* engine,
                                  ServerGauges gauges) const {
  Writer w(model_name);
  engine::EngineCounters c;
  if (engine) c = engine->counters();
  w.scalar("vllm:num_requests_running", "gauge", "Requests holding a slot.", c.running);
  w.scalar("vllm:num_requests_waiting", "gauge", "Requests queued for a slot.", c.waiting);
  w.scalar("vllm:prompt_tokens_total", "counter", "Prompt tokens prefilled.", double(c.prompt_tokens));
  w.scalar("vllm:generation_tokens_total", "counter", "Tokens generated.", double(c.generation_tokens));
  w.header("vllm:request_success_total", "counter", "Finished requests by finish reason.");
  for (int reason = 0; reason < 4; ++reason)
    w.sample("vllm:request_success_total", double(c.requests_finished[reason]),
             fmt::format("finished_reason=\"{}\"", finished_reason_label(engine::FinishReason(reason))));
  w.histogram("vllm:time_to_first_token_seconds", "Time from arrival to the first generated token.",
              ttft_.snapshot());
  w.histogram("vllm:inter_token_latency_seconds", "Time between consecutive generated tokens.", itl_.snapshot());
  w.histogram("vllm:e2e_request_latency_seconds", "Time from arrival to the last token.", e2e_.snapshot());
  int64_t queries, hits, rejected;
  std::map<int, int64_t> http;
  {
    std::lock_guard lock(mutex_);
    queries = prefix_queries_;
    hits = prefix_hits_;
    rejected = queue_rejected_;
    http = http_responses_;
  }
  w.scalar("vllm:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prompt cache.",
           double(queries));
  w.scalar("vllm:prefix_cache_hits_total", "counter", "Prompt tokens resumed from the prompt cache.", double(hits));
  w.scalar("vllm:spec_decode_num_draft_tokens_total", "counter", "Draft tokens proposed.",
           double(c.drafts_proposed));
  w.scalar("vllm:spec_decode_num_accepted_tokens_total", "counter", "Draft tokens accepted.",
           double(c.drafts_accepted));
  w.scalar("plumb:model_loaded", "gauge", "1 once the model is loaded and requests are served.", engine ? 1 : 0);
  w.scalar("plumb:slots", "gauge", "Slots in use (--parallel).", engine ? engine->config().parallel : 0);
  w.scalar("plumb:requests_in_flight", "gauge", "Requests the server holds an engine handle for.",
           gauges.requests_in_flight);
  w.scalar("plumb:streams_open", "gauge", "Streamed replies being written.", gauges.streams_open);
  w.scalar("plumb:rounds_total", "counter", "Forward launches (rounds).", double(c.rounds));
  w.scalar("plumb:round_rows_total", "counter", "Rows over all rounds.", double(c.rows));
  w.scalar("plumb:prompt_cache_bytes", "gauge", "Bytes of slot states kept in the prompt cache.",
           double(c.cache.bytes_kept));
  w.scalar("plumb:prompt_cache_states", "gauge", "Slot states kept in the prompt cache.", double(c.cache.states_kept));
  w.scalar("plumb:prompt_cache_evictions_total", "counter", "Kept states evicted from the prompt cache.",
           double(c.cache.evictions));
  w.scalar("plumb:queue_rejected_total", "counter", "Requests refused with 503 because the queue was full.",
           double(rejected));
  w.header("plumb:http_responses_total", "counter", "HTTP responses by status code.");
  for (const auto& [status, n] : http)
    w.sample("plumb:http_responses_total", double(n), fmt::format("code=\"{}\"", status));
  return w.take();
}

}  // namespace plumb::server
