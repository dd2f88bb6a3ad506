// The OpenAI-compatible server assembled: HTTP front, routes and shared context, listening on its own thread.
// It answers as soon as it starts (liveness; 503 "loading" elsewhere) and serves requests once serve_model()
// hands it a loaded model. shutdown() answers new requests 503, lets requests in flight finish for a grace
// period, cancels the rest, then stops listening. `plumb serve` and the in-process server tests both use it.
#pragma once

#include <chrono>
#include <memory>
#include <thread>

#include "server/http_server.h"
#include "server/server_context.h"

namespace plumb::server {

class ApiServer {
 public:
  ApiServer(HttpOptions options, std::string model_id);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int start();                        // binds and starts serving; returns the port
  void serve_model(ServedModel model); // the model is loaded and its engine running

  // Refuses new requests, waits up to `grace` for requests in flight, stops the engine (cancelling what is
  // left), then stops listening and waits for every connection to finish. Safe to call more than once.
  void shutdown(std::chrono::milliseconds grace);

  ServerContext& context() { return ctx_; }

 private:
  ServerContext ctx_;
  HttpServer http_;
  std::thread http_thread_;
  engine::Engine* engine_ = nullptr;
  bool shut_down_ = false;
};

}  // namespace plumb::server
