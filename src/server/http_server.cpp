#include "server/http_server.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "base/error.h"
#include "server/json_fields.h"

namespace plumb::server {
namespace {

// A body past the limit is still read (and dropped) up to this much, so the 413 reaches a client that sends
// its whole body before reading; past it the connection is abandoned.
constexpr size_t kDrainFactor = 16;

ApiError error_for_status(int status, const httplib::Request& req) {
  switch (status) {
    case 400: return invalid_request("the HTTP request could not be parsed");
    case 404:
      return ApiError(404, "invalid_request_error", "Invalid URL (" + req.method + " " + req.path + ")", "",
                      "unknown_url");
    case 413:
      return ApiError(413, "invalid_request_error", "the request body is too large", "", "request_too_large");
    case 414: return ApiError(414, "invalid_request_error", "the request URI is too long");
    case 416: return ApiError(416, "invalid_request_error", "the requested range cannot be satisfied");
    default:
      return ApiError(status, status >= 500 ? "server_error" : "invalid_request_error",
                      "the request failed with HTTP status " + std::to_string(status));
  }
}

// Constant-time comparison: a wrong key takes as long to refuse whatever its first differing byte.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= uint8_t(a[i]) ^ uint8_t(i < b.size() ? b[i] : 0);
  return diff == 0;
}

}  // namespace

void send_json(httplib::Response& res, int status, const nlohmann::ordered_json& body) {
  res.status = status;
  res.set_content(dump_json(body), "application/json");
}

void send_error(httplib::Response& res, const ApiError& e) {
  if (e.retry_after_s > 0) res.set_header("Retry-After", std::to_string(e.retry_after_s));
  if (e.status == 401) res.set_header("WWW-Authenticate", "Bearer");
  send_json(res, e.status, error_body(e));
}

HttpServer::HttpServer(HttpOptions options, ServerMetrics& metrics)
    : options_(std::move(options)), metrics_(metrics) {
  const int threads = options_.threads;
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  server_.set_payload_max_length(options_.max_body_bytes);
  server_.set_keep_alive_max_count(1000);
  // Longer than the idle expiry of common clients (5 s in httpx, 4 s in undici), so a client never reuses a
  // connection the server is just closing.
  server_.set_keep_alive_timeout(10);
  server_.set_read_timeout(30);
  server_.set_write_timeout(30);

  server_.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const ApiError e = error_for_status(res.status, req);
    res.set_content(dump_json(error_body(e)), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));
  server_.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("http: handler failed: {}", what);
    send_error(res, ApiError(500, "server_error", "internal error: " + what));
  });
  server_.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    metrics_.http_response(res.status);
    spdlog::debug("http: {} {} -> {}", req.method, req.path, res.status);
  });

  auto with_body = [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    handle(req, res, &reader);
  };
  auto without_body = [this](const httplib::Request& req, httplib::Response& res) { handle(req, res, nullptr); };
  server_.Get(".*", without_body);
  server_.Options(".*", without_body);
  server_.Post(".*", with_body);
  server_.Post(".*", without_body);
  server_.Put(".*", with_body);
  server_.Put(".*", without_body);
  server_.Patch(".*", with_body);
  server_.Patch(".*", without_body);
  server_.Delete(".*", with_body);
  server_.Delete(".*", without_body);
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::add_route(const std::string& method, const std::string& path, RouteHandler handler, bool is_public) {
  routes_[path][method] = Route{std::move(handler), is_public};
}

const std::map<std::string, HttpServer::Route>* HttpServer::find_path(const std::string& path) const {
  if (auto it = routes_.find(path); it != routes_.end()) return &it->second;
  for (const auto& [pattern, methods] : routes_)
    if (pattern.size() > 1 && pattern.back() == '/' && path.size() > pattern.size() && path.starts_with(pattern))
      return &methods;
  return nullptr;
}

bool HttpServer::authorized(const httplib::Request& req) const {
  if (options_.api_key.empty()) return true;
  const std::string header = req.get_header_value("Authorization");
  const std::string prefix = "Bearer ";
  if (header.size() <= prefix.size() || header.compare(0, prefix.size(), prefix) != 0) return false;
  return same_secret(header.substr(prefix.size()), options_.api_key);
}

bool HttpServer::read_body(const httplib::ContentReader& reader, httplib::Response& res, std::string& body) const {
  size_t seen = 0;
  bool too_large = false;
  const bool complete = reader([&](const char* data, size_t n) {
    seen += n;
    if (seen > options_.max_body_bytes) {
      if (!too_large) std::string().swap(body);
      too_large = true;
      return seen <= options_.max_body_bytes * kDrainFactor;
    }
    body.append(data, n);
    return true;
  });
  // httplib sets 413 itself when Content-Length is past the limit.
  if (too_large || res.status == 413) {
    res.status = -1;
    send_error(res, error_for_status(413, httplib::Request()));
    return false;
  }
  if (!complete) {
    res.status = -1;
    send_error(res, invalid_request("the request body could not be read"));
    return false;
  }
  return true;
}

void HttpServer::handle(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader* reader) {
  std::string body;
  // The body is read first even when the answer is an error, so the connection stays in step for the next request.
  if (reader && !read_body(*reader, res, body)) return;
  const auto* methods = find_path(req.path);
  const bool is_public = methods && methods->contains(req.method) && methods->at(req.method).is_public;
  if (!is_public && !authorized(req)) {
    send_error(res, ApiError(401, "invalid_request_error",
                             "Incorrect or missing API key: send it as 'Authorization: Bearer <key>'", "",
                             "invalid_api_key"));
    return;
  }
  if (!methods) {
    send_error(res, error_for_status(404, req));
    return;
  }
  auto it = methods->find(req.method == "HEAD" ? "GET" : req.method);
  if (it == methods->end()) {
    std::string allow;
    for (const auto& [m, r] : *methods) allow += (allow.empty() ? "" : ", ") + m;
    res.set_header("Allow", allow);
    send_error(res, ApiError(405, "invalid_request_error",
                             "Method " + req.method + " is not allowed on " + req.path + " (allowed: " + allow + ")",
                             "", "method_not_allowed"));
    return;
  }
  try {
    it->second.handler(req, body, res);
  } catch (const ApiError& e) {
    send_error(res, e);
  }
}

int HttpServer::bind() {
  server_.set_socket_options([this](int sock) {
    httplib::default_socket_options(sock);
    listen_fd_ = sock;
  });
  const int port = options_.port == 0 ? server_.bind_to_any_port(options_.host)
                                      : (server_.bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0) fail("cannot listen on {}:{} (in use, or not an address of this machine)", options_.host, options_.port);
  // httplib listens with a backlog of 5; many clients connecting at once would wait on SYN retries.
  if (listen_fd_ >= 0) ::listen(listen_fd_, SOMAXCONN);
  bound_ = true;
  return port;
}

void HttpServer::run() {
  if (!bound_) fail("HttpServer::run before bind");
  {
    std::lock_guard lock(run_mutex_);
    if (stop_requested_) return;
    running_ = true;
  }
  server_.listen_after_bind();
  std::lock_guard lock(run_mutex_);
  running_ = false;
}

void HttpServer::stop() {
  {
    std::lock_guard lock(run_mutex_);
    stop_requested_ = true;
    if (!running_) return;
  }
  // run() may be just entering httplib's accept loop, where stop() takes effect only once it is running.
  for (int i = 0; i < 5000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_.stop();
}

}  // namespace plumb::server
