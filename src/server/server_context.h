// What every route shares: the served model (absent while it loads), the metrics, and the server's lifecycle
// (draining on shutdown). Requests in flight are counted so shutdown can wait for them.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "engine/engine.h"
#include "server/metrics.h"
#include "server/model_text.h"

namespace plumb::server {

struct ServedModel {
  std::string id;         // the model id clients name
  int64_t created = 0;    // unix seconds at load
  int64_t max_context = 0;
  engine::Engine* engine = nullptr;
  const ModelText* text = nullptr;
};

class ServerContext {
 public:
  explicit ServerContext(std::string model_id) : model_id_(std::move(model_id)) {}

  // The model, or throws a 503 ApiError (Retry-After) while loading or once draining.
  const ServedModel& require_model() const;
  const ServedModel* model() const { return loaded_.load() ? &model_ : nullptr; }
  void set_model(ServedModel m);  // once, when loading is done
  const std::string& model_id() const { return model_id_; }

  void begin_drain() { draining_ = true; }
  bool draining() const { return draining_; }

  // Requests holding an engine handle; shutdown waits for them to finish.
  void request_started();
  void request_ended();
  int32_t requests_in_flight() const { return in_flight_.load(); }
  int32_t streams_open() const { return streams_.load(); }
  void stream_opened() { ++streams_; }
  void stream_closed() { --streams_; }
  // Waits until no request is in flight or `timeout` passes; true when none is left.
  bool wait_idle(std::chrono::milliseconds timeout);

  ServerMetrics metrics;

 private:
  std::string model_id_;
  ServedModel model_;
  std::atomic<bool> loaded_{false};
  std::atomic<bool> draining_{false};
  std::atomic<int32_t> in_flight_{0};
  std::atomic<int32_t> streams_{0};
  std::mutex idle_mutex_;
  std::condition_variable idle_;
};

}  // namespace plumb::server
