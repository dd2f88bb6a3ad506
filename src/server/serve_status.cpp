#include "server/serve_status.h"

#include <fmt/format.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>

namespace plumb::server {

// Writes log lines to stderr around a status line kept at the bottom.
class StatusSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  void set_status(const std::string& line) {
    std::lock_guard lock(mutex_);
    status_ = line;
    std::fprintf(stderr, "\r\033[K%s", status_.c_str());
    std::fflush(stderr);
  }
  void clear_status() {
    std::lock_guard lock(mutex_);
    if (!status_.empty()) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    status_.clear();
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    if (!status_.empty()) std::fputs("\r\033[K", stderr);
    std::fwrite(formatted.data(), 1, formatted.size(), stderr);
    if (!status_.empty()) std::fputs(status_.c_str(), stderr);
    std::fflush(stderr);
  }
  void flush_() override { std::fflush(stderr); }

 private:
  std::string status_;
};

ServeStatus::ServeStatus(bool live) : live_(live) {
  if (!live_) return;
  sink_ = std::make_shared<StatusSink>();
  auto logger = spdlog::default_logger();
  sink_->set_pattern("%^%L%$ %H:%M:%S.%e %v");
  logger->sinks().clear();
  logger->sinks().push_back(sink_);
}

ServeStatus::~ServeStatus() { stop(); }

void ServeStatus::draw(const std::string& line) {
  if (sink_) sink_->set_status(line);
}

void ServeStatus::loading(int64_t done, int64_t total, const std::string& what) {
  const int percent = total > 0 ? int(done * 100 / total) : 0;
  if (live_) {
    if (percent != last_drawn_percent_) draw(fmt::format("loading {:3d}%  {}", percent, what));
    last_drawn_percent_ = percent;
    if (done >= total) sink_->clear_status();
  } else if (percent / 25 != last_logged_percent_ / 25 || (done >= total && last_logged_percent_ != 100)) {
    spdlog::info("loading {}%", percent);
    last_logged_percent_ = percent;
  }
}

void ServeStatus::start(const ServerContext& ctx, std::string address) {
  if (!live_) return;
  thread_ = std::thread([this, &ctx, address] {
    using clock = std::chrono::steady_clock;
    int64_t last_tokens = 0;
    auto last_time = clock::now();
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      const ServedModel* m = ctx.model();
      engine::EngineCounters c;
      if (m) c = m->engine->counters();
      const auto now = clock::now();
      const double dt = std::chrono::duration<double>(now - last_time).count();
      const double tps = dt > 0 ? double(c.generation_tokens - last_tokens) / dt : 0.0;
      last_tokens = c.generation_tokens;
      last_time = now;
      int64_t served = 0;
      for (int64_t n : c.requests_finished) served += n;
      draw(fmt::format("plumb serve {}  streams {}  running {}  waiting {}  {:.1f} tok/s  {} served", address,
                       ctx.streams_open(), c.running, c.waiting, tps, served));
      wake_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stopping_; });
    }
  });
}

void ServeStatus::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (sink_) sink_->clear_status();
}

}  // namespace plumb::server
