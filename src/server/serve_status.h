// The live status line of `plumb serve` on a terminal: loading progress, then streams, running and waiting
// requests, tokens per second and requests served, redrawn in place. Log lines go through the same sink, which
// clears the status line before a log line and redraws it after, so the two never mix. Off a terminal there is
// no live line; loading progress is logged in steps instead.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/server_context.h"

namespace plumb::server {

class StatusSink;

class ServeStatus {
 public:
  // `live`: draw the line (stderr is a terminal). Installs the status-aware log sink when live.
  explicit ServeStatus(bool live);
  ~ServeStatus();
  ServeStatus(const ServeStatus&) = delete;
  ServeStatus& operator=(const ServeStatus&) = delete;

  bool live() const { return live_; }
  // Loading progress (open_model's callback).
  void loading(int64_t done, int64_t total, const std::string& what);
  // Redraws every half second from the server's counters until stop().
  void start(const ServerContext& ctx, std::string address);
  void stop();

 private:
  void draw(const std::string& line);

  bool live_;
  std::shared_ptr<StatusSink> sink_;
  int last_logged_percent_ = -1, last_drawn_percent_ = -1;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace plumb::server
