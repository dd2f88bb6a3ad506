// An in-process plumb server on loopback for the HTTP tests: the toy model (optionally paced, so requests stay
// in flight long enough to cancel), an engine on its own thread, the real ApiServer, and helpers to talk to it
// (JSON posts, SSE parsing, raw sockets for clients that vanish) and to compute a request's solo result.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../engine/toy_model.h"
#include "ascii_text.h"
#include "base/sha256.h"
#include "server/api_server.h"

namespace plumb::test {

using json = nlohmann::ordered_json;

// The toy model, with an optional pause per launch.
class PacedToyModel : public ToyModel {
 public:
  PacedToyModel(int32_t vocab, int32_t slots, int64_t context, std::chrono::microseconds pace)
      : ToyModel(vocab, slots, context), pace_(pace) {}
  void forward(std::span<const model::Row> rows, std::span<float> logits) override {
    if (pace_.count() > 0) std::this_thread::sleep_for(pace_);
    ToyModel::forward(rows, logits);
  }

 private:
  std::chrono::microseconds pace_;
};

struct HarnessOptions {
  int32_t parallel = 4;
  int64_t context = 256;
  int32_t max_waiting = 1024;
  std::string api_key;
  std::chrono::microseconds pace{0};
};

constexpr int32_t kToyEos = 4;

inline engine::EngineConfig toy_engine_config(int32_t parallel, int32_t max_waiting) {
  engine::EngineConfig c;
  c.parallel = parallel;
  c.max_waiting = max_waiting;
  c.eos_token_ids = {kToyEos};
  return c;
}

class TestServer {
 public:
  explicit TestServer(HarnessOptions o = {})
      : options_(o),
        model_(128, 16, o.context, o.pace),
        engine_(model_, toy_engine_config(o.parallel, o.max_waiting), text_.text_streams()),
        api_(server::HttpOptions{.host = "127.0.0.1", .port = 0, .api_key = o.api_key}, "toy") {
    engine_.start();
    port_ = api_.start();
    api_.serve_model({"toy", 1700000000, o.context, &engine_, &text_});
  }
  ~TestServer() { api_.shutdown(std::chrono::milliseconds(0)); }

  int port() const { return port_; }
  engine::Engine& engine() { return engine_; }
  server::ApiServer& api() { return api_; }
  const AsciiText& text() const { return text_; }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    if (!options_.api_key.empty()) c.set_default_headers({{"Authorization", "Bearer " + options_.api_key}});
    return c;
  }
  httplib::Result post(const std::string& path, const json& body) const {
    return client().Post(path.c_str(), body.dump(), "application/json");
  }

  // Waits until the engine holds no request (running or waiting); false after `timeout`.
  bool wait_engine_idle(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      const auto c = engine_.counters();
      if (c.running == 0 && c.waiting == 0 && api_.context().requests_in_flight() == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

 private:
  HarnessOptions options_;
  AsciiText text_;
  PacedToyModel model_;
  engine::Engine engine_;
  server::ApiServer api_;
  int port_ = 0;
};

// The token_sha256 a request gets served alone on a fresh toy model (its expected value in every test).
inline std::string solo_sha(const std::vector<int32_t>& prompt, engine::SamplingParams sampling, int32_t max_tokens,
                            int64_t context = 256) {
  ToyModel model(128, 1, context);
  engine::Engine eng(model, toy_engine_config(1, 16));
  engine::GenerationRequest r;
  r.prompt = prompt;
  r.sampling = sampling;
  r.stop.max_tokens = max_tokens;
  auto h = eng.submit(r);
  eng.run_until_idle();
  return h->wait_all().stats.token_sha256;
}

// The events of an SSE body: each "data: " payload, in order.
inline std::vector<std::string> sse_events(const std::string& body) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < body.size()) {
    const size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) break;
    const std::string event = body.substr(pos, end - pos);
    if (event.rfind("data: ", 0) == 0) out.push_back(event.substr(6));
    pos = end + 2;
  }
  return out;
}

// A raw TCP client: sends bytes, reads some, and can vanish mid-request.
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) ADD_FAILURE() << "connect failed";
  }
  ~RawClient() { close(); }
  void send(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += size_t(n);
    }
  }
  // Reads until `needle` has arrived (or the peer closes / 10 s pass); returns everything read.
  std::string read_until(const std::string& needle) {
    std::string got;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    char buf[4096];
    while (got.find(needle) == std::string::npos && std::chrono::steady_clock::now() < end) {
      timeval tv{0, 100000};
      setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n == 0) break;
      if (n > 0) got.append(buf, size_t(n));
    }
    return got;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

inline std::string http_post(const std::string& path, const std::string& body, const std::string& extra_headers = {}) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n" + extra_headers + "\r\n" + body;
}

}  // namespace plumb::test
