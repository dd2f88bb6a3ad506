#include "server/server_context.h"

#include "server/api_error.h"

namespace plumb::server {

const ServedModel& ServerContext::require_model() const {
  if (draining_) {
    ApiError e(503, "server_error", "the server is shutting down", "", "shutting_down");
    e.retry_after_s = 5;
    throw e;
  }
  if (!loaded_) {
    ApiError e(503, "server_error", "the model is still loading", "", "model_loading");
    e.retry_after_s = 5;
    throw e;
  }
  return model_;
}

void ServerContext::set_model(ServedModel m) {
  model_ = std::move(m);
  loaded_ = true;
}

void ServerContext::request_started() { ++in_flight_; }

void ServerContext::request_ended() {
  {
    std::lock_guard lock(idle_mutex_);
    --in_flight_;
  }
  idle_.notify_all();
}

bool ServerContext::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(idle_mutex_);
  return idle_.wait_for(lock, timeout, [&] { return in_flight_.load() == 0; });
}

}  // namespace plumb::server
