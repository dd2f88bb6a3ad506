// The HTTP front: cpp-httplib set up for many long-lived streaming connections, with plumb's own routing so every
// failure has an OpenAI-shaped body: bodies past the limit get 413 (with or without Content-Length), a missing
// or wrong API key 401, an unknown path 404, a known path with the wrong method 405, an ApiError its status,
// anything else thrown 500. httplib is only the transport: one catch-all handler per method reads the body and
// dispatches to the routes added here.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "server/api_error.h"
#include "server/metrics.h"

namespace plumb::server {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                        // 0: any free port
  std::string api_key;                    // empty: no authentication
  size_t max_body_bytes = size_t(8) << 20;
  int threads = 256;                      // connections served at once (each streaming client holds one)
};

// A route's view of a request: httplib's parsed request line and headers, and the body read within the limit.
using RouteHandler = std::function<void(const httplib::Request& req, const std::string& body, httplib::Response& res)>;

class HttpServer {
 public:
  HttpServer(HttpOptions options, ServerMetrics& metrics);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // `path` is matched exactly, or as a prefix when it ends with '/'. Public routes need no API key.
  void add_route(const std::string& method, const std::string& path, RouteHandler handler, bool is_public = false);

  int bind();  // binds the listening socket; returns the port (throws plumb::Error when it cannot)
  void run();  // accepts and serves until stop(); returns after every connection has finished
  void stop(); // stops accepting; connections finish what they are doing

 private:
  struct Route {
    RouteHandler handler;
    bool is_public = false;
  };
  void handle(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader* reader);
  const std::map<std::string, Route>* find_path(const std::string& path) const;
  bool authorized(const httplib::Request& req) const;
  bool read_body(const httplib::ContentReader& reader, httplib::Response& res, std::string& body) const;

  HttpOptions options_;
  ServerMetrics& metrics_;
  httplib::Server server_;
  std::map<std::string, std::map<std::string, Route>> routes_;  // path -> method -> route
  std::atomic<bool> bound_{false};
  int listen_fd_ = -1;
  std::mutex run_mutex_;
  bool running_ = false, stop_requested_ = false;
};

// Response helpers every route uses.
void send_json(httplib::Response& res, int status, const nlohmann::ordered_json& body);
void send_error(httplib::Response& res, const ApiError& e);

}  // namespace plumb::server
