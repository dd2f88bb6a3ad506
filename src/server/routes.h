// The API routes, one file per group: chat (routes_chat.cpp), completions (routes_completions.cpp), and the
// rest (routes_info.cpp: models, tokenize, detokenize, health, readiness, metrics).
#pragma once

#include <optional>
#include <string>

#include "server/http_server.h"
#include "server/server_context.h"

namespace plumb::server {

void add_chat_routes(HttpServer& http, ServerContext& ctx);
void add_completion_routes(HttpServer& http, ServerContext& ctx);
void add_info_routes(HttpServer& http, ServerContext& ctx);

inline void add_all_routes(HttpServer& http, ServerContext& ctx) {
  add_chat_routes(http, ctx);
  add_completion_routes(http, ctx);
  add_info_routes(http, ctx);
}

// Shared by the routes: the request body as JSON (400 on broken JSON or invalid UTF-8), and the model check
// (404 model_not_found when a request names another model; a missing name means the served one).
nlohmann::ordered_json parse_body(const std::string& body);
void check_model_name(const std::optional<std::string>& requested, const ServedModel& model);

}  // namespace plumb::server
