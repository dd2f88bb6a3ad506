// A small OpenAI-compatible server for the bench tests: it streams deterministic tokens (a function of the prompt,
// and of the seed when the temperature is above 0), reports token_sha256 through plumb's extension, keeps seen
// prompts to report cached_tokens, and can misbehave on purpose: perturb one reply that ran concurrently with
// another (a batching bug that --alone must catch), or leave out the hash. Tokens can be paced (a fixed first-token
// delay, then one token every interval, on absolute deadlines) so timings are steady enough for the A/B rule.
#pragma once

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/sha256.h"

namespace plumb::test {

struct FakeServerOptions {
  std::chrono::milliseconds first_token_delay{0};
  std::chrono::milliseconds token_interval{0};
  bool perturb_one_concurrent_reply = false;  // the first reply that overlapped another gets its last token changed
  bool send_token_sha256 = true;
  bool prompt_cache = true;  // report cached_tokens as the longest prefix shared with an earlier prompt
  int port = 0;              // 0: any free port
  std::string model_id = "fake-model";  // what GET /v1/models lists
  std::chrono::milliseconds loading{0};  // /v1/models answers 503 this long after start (/health is live at once)
};

class FakeOpenaiServer {
 public:
  explicit FakeOpenaiServer(FakeServerOptions options = {}) : options_(options) {
    server_.new_task_queue = [] { return new httplib::ThreadPool(32); };
    server_.Get("/health", [](const httplib::Request&, httplib::Response& res) { res.set_content("{}", "application/json"); });
    server_.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
      if (std::chrono::steady_clock::now() < started_ + options_.loading) {
        res.status = 503;
        res.set_content(R"({"error":{"message":"loading","type":"unavailable"}})", "application/json");
        return;
      }
      const nlohmann::json list = {{"object", "list"}, {"data", {{{"id", options_.model_id}, {"object", "model"}}}}};
      res.set_content(list.dump(), "application/json");
    });
    server_.Post("/v1/chat/completions",
                 [this](const httplib::Request& req, httplib::Response& res) { generate(req, res, true); });
    server_.Post("/v1/completions",
                 [this](const httplib::Request& req, httplib::Response& res) { generate(req, res, false); });
    if (options_.port == 0) {
      port_ = server_.bind_to_any_port("127.0.0.1");
    } else if (server_.bind_to_port("127.0.0.1", options_.port)) {
      port_ = options_.port;
    }
    if (port_ > 0) thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeOpenaiServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }  // <= 0 when binding failed
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  bool perturbed_a_reply() const { return perturbed_; }

  // The ids the server generates for a prompt (its text bytes, or its token ids), as a test computes them.
  static std::vector<int32_t> tokens_for(const std::vector<int32_t>& prompt, uint64_t seed, double temperature,
                                         int64_t count) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the prompt, then the seed when sampling
    auto mix = [&](uint64_t v) {
      for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
    };
    for (int32_t id : prompt) mix(uint64_t(uint32_t(id)));
    if (temperature > 0) mix(seed);
    std::vector<int32_t> out;
    for (int64_t k = 0; k < count; ++k) {
      mix(uint64_t(k));
      out.push_back(int32_t(h % 50000));
    }
    return out;
  }
  static std::vector<int32_t> text_prompt(const std::string& text) {
    return std::vector<int32_t>(text.begin(), text.end());
  }

 private:
  using json = nlohmann::json;

  void generate(const httplib::Request& req, httplib::Response& res, bool chat) {
    const json body = json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.value("stream", false)) {
      res.status = 400;
      res.set_content(R"({"error":{"message":"the fake server only streams","type":"invalid_request_error"}})",
                      "application/json");
      return;
    }
    const std::vector<int32_t> prompt = chat ? text_prompt(body["messages"][0]["content"].get<std::string>())
                                             : body["prompt"].get<std::vector<int32_t>>();
    const int64_t max_tokens = body.value("max_tokens", int64_t(16));
    const bool draft = body.value("draft", true);
    std::vector<int32_t> tokens = tokens_for(prompt, body.value("seed", uint64_t(0)), body.value("temperature", 1.0), max_tokens);
    const int64_t cached = remember(prompt);
    const bool include_usage = body.contains("stream_options") && body["stream_options"].value("include_usage", false);

    res.set_chunked_content_provider("text/event-stream", [=, this](size_t, httplib::DataSink& sink) mutable {
      const int others_at_start = in_flight_.fetch_add(1);
      const auto start = std::chrono::steady_clock::now();
      auto send = [&](const json& chunk) {
        const std::string event = "data: " + chunk.dump() + "\n\n";
        return sink.write(event.data(), event.size());
      };
      bool overlapped = others_at_start > 0;
      for (size_t k = 0; k < tokens.size(); ++k) {
        std::this_thread::sleep_until(start + options_.first_token_delay + options_.token_interval * int64_t(k));
        overlapped = overlapped || in_flight_.load() > 1;
        bool first_perturbation = false;
        if (k + 1 == tokens.size() && overlapped && options_.perturb_one_concurrent_reply &&
            perturbed_.compare_exchange_strong(first_perturbation, true))
          tokens[k] += 1;
        const std::string piece = fmt::format("t{} ", tokens[k]);
        json chunk = chat ? json{{"object", "chat.completion.chunk"},
                                 {"choices", {{{"index", 0}, {"delta", {{"content", piece}}}, {"finish_reason", nullptr}}}}}
                          : json{{"object", "text_completion"},
                                 {"choices", {{{"index", 0}, {"text", piece}, {"finish_reason", nullptr}}}}};
        if (!send(chunk)) break;
      }
      // As plumb serve does: the extension rides on the chunk with the finish reason, usage on a chunk of its own.
      json last = {{"object", chat ? "chat.completion.chunk" : "text_completion"},
                   {"choices", {{{"index", 0}, {"finish_reason", "length"}}}}};
      last["choices"][0][chat ? "delta" : "text"] = chat ? json::object() : json("");
      json ext = {{"drafts", {{"proposed", draft ? tokens.size() : 0}, {"accepted", draft ? tokens.size() / 2 : 0}}}};
      if (options_.send_token_sha256) ext["token_sha256"] = plumb::token_sha256(tokens);
      last["plumb"] = ext;
      send(last);
      if (include_usage) {
        send({{"object", chat ? "chat.completion.chunk" : "text_completion"},
              {"choices", json::array()},
              {"usage",
               {{"prompt_tokens", prompt.size()},
                {"completion_tokens", tokens.size()},
                {"total_tokens", prompt.size() + tokens.size()},
                {"prompt_tokens_details", {{"cached_tokens", cached}}}}}});
      }
      const std::string done = "data: [DONE]\n\n";
      sink.write(done.data(), done.size());
      in_flight_.fetch_sub(1);
      sink.done();
      return true;
    });
  }

  // cached_tokens: the longest prefix shared with an earlier prompt, leaving at least one token to compute.
  int64_t remember(const std::vector<int32_t>& prompt) {
    std::lock_guard lock(mutex_);
    size_t best = 0;
    if (options_.prompt_cache) {
      for (const auto& seen : seen_) {
        const auto [a, b] = std::mismatch(prompt.begin(), prompt.end(), seen.begin(), seen.end());
        best = std::max(best, size_t(a - prompt.begin()));
      }
    }
    seen_.push_back(prompt);
    return int64_t(std::min(best, prompt.empty() ? 0 : prompt.size() - 1));
  }

  FakeServerOptions options_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  httplib::Server server_;
  std::thread thread_;
  int port_ = -1;
  std::atomic<int> in_flight_{0};
  std::atomic<bool> perturbed_{false};
  std::mutex mutex_;
  std::vector<std::vector<int32_t>> seen_;
};

}  // namespace plumb::test
