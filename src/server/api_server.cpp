#include "server/api_server.h"

#include <spdlog/spdlog.h>

#include "server/routes.h"

namespace plumb::server {

ApiServer::ApiServer(HttpOptions options, std::string model_id)
    : ctx_(std::move(model_id)), http_(std::move(options), ctx_.metrics) {
  add_all_routes(http_, ctx_);
}

ApiServer::~ApiServer() { shutdown(std::chrono::milliseconds(0)); }

int ApiServer::start() {
  const int port = http_.bind();
  http_thread_ = std::thread([this] { http_.run(); });
  return port;
}

void ApiServer::serve_model(ServedModel model) {
  engine_ = model.engine;
  ctx_.set_model(std::move(model));
}

void ApiServer::shutdown(std::chrono::milliseconds grace) {
  if (shut_down_) return;
  shut_down_ = true;
  // New requests get 503 from here on; the listening socket stays open until the replies in flight are
  // written, because httplib stops writing streamed bodies once it stops listening.
  ctx_.begin_drain();
  if (!ctx_.wait_idle(grace))
    spdlog::info("shutdown: cancelling {} request(s) still running", ctx_.requests_in_flight());
  // Stopping the engine finishes every request left as cancelled; their handlers then answer and end.
  if (engine_) engine_->stop();
  if (!ctx_.wait_idle(std::chrono::seconds(10))) spdlog::warn("shutdown: some replies did not finish writing");
  http_.stop();
  if (http_thread_.joinable()) http_thread_.join();
}

}  // namespace plumb::server
