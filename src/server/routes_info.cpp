// GET /v1/models and /v1/models/{id}, POST /tokenize and /detokenize, GET /health (liveness, public),
// GET /health/ready (readiness: 503 until the model is loaded and while draining, public), GET /metrics.
#include <fmt/format.h>

#include "base/error.h"
#include "server/api_error.h"
#include "server/json_fields.h"
#include "server/openai_request.h"
#include "server/routes.h"

namespace plumb::server {

json parse_body(const std::string& body) {
  if (body.empty()) throw invalid_request("the request body is empty; send a JSON object", "", "invalid_json");
  // Deeper nesting serves no request, and later recursive walks (dump) would run out of stack on it.
  static constexpr int kMaxDepth = 64;
  auto depth_guard = [](int depth, json::parse_event_t, json&) {
    if (depth > kMaxDepth)
      throw invalid_request(fmt::format("the request body nests deeper than {} levels", kMaxDepth), "",
                            "invalid_json");
    return true;
  };
  try {
    return json::parse(body, depth_guard);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers such as 1e400
    throw invalid_request(fmt::format("the request body is not valid JSON: {}", e.what()), "", "invalid_json");
  }
}

void check_model_name(const std::optional<std::string>& requested, const ServedModel& model) {
  if (requested && *requested != model.id)
    throw ApiError(404, "invalid_request_error",
                   fmt::format("The model '{}' does not exist; this server serves '{}'", *requested, model.id),
                   "model", "model_not_found");
}

namespace {

json model_card(const ServedModel& m) {
  return {{"id", m.id}, {"object", "model"}, {"created", m.created}, {"owned_by", "plumb"},
          {"max_model_len", m.max_context}};
}

}  // namespace

void add_info_routes(HttpServer& http, ServerContext& ctx) {
  http.add_route("GET", "/v1/models", [&ctx](const httplib::Request&, const std::string&, httplib::Response& res) {
    const auto& m = ctx.require_model();
    send_json(res, 200, {{"object", "list"}, {"data", json::array({model_card(m)})}});
  });
  http.add_route("GET", "/v1/models/", [&ctx](const httplib::Request& req, const std::string&, httplib::Response& res) {
    const auto& m = ctx.require_model();
    const std::string id = req.path.substr(std::string("/v1/models/").size());
    check_model_name(id, m);
    send_json(res, 200, model_card(m));
  });

  http.add_route("POST", "/tokenize", [&ctx](const httplib::Request&, const std::string& body, httplib::Response& res) {
    const auto& m = ctx.require_model();
    const auto req = parse_tokenize_request(parse_body(body));
    check_model_name(req.model, m);
    std::string text;
    if (req.chat) {
      try {
        text = m.text->render_chat(req.chat->messages, json::array(), {});
      } catch (const plumb::Error& e) {
        throw invalid_request(e.what(), "messages");
      }
    } else {
      text = *req.prompt;
    }
    const auto ids = m.text->encode(text);
    send_json(res, 200, {{"tokens", ids}, {"count", ids.size()}, {"max_model_len", m.max_context}});
  });
  http.add_route("POST", "/detokenize", [&ctx](const httplib::Request&, const std::string& body,
                                               httplib::Response& res) {
    const auto& m = ctx.require_model();
    const auto req = parse_detokenize_request(parse_body(body));
    check_model_name(req.model, m);
    const int32_t vocab = m.text->vocab_size();
    for (size_t i = 0; i < req.tokens.size(); ++i)
      if (req.tokens[i] >= vocab)
        throw invalid_request(fmt::format("token id {} at tokens[{}] is outside the vocabulary [0, {})",
                                          req.tokens[i], i, vocab),
                              "tokens");
    send_json(res, 200, {{"prompt", m.text->decode(req.tokens)}});
  });

  http.add_route("GET", "/health", [](const httplib::Request&, const std::string&, httplib::Response& res) {
    send_json(res, 200, {{"status", "ok"}});
  }, true);
  http.add_route("GET", "/health/ready", [&ctx](const httplib::Request&, const std::string&, httplib::Response& res) {
    ctx.require_model();
    send_json(res, 200, {{"status", "ready"}, {"model", ctx.model_id()}});
  }, true);
  http.add_route("GET", "/metrics", [&ctx](const httplib::Request&, const std::string&, httplib::Response& res) {
    const ServedModel* m = ctx.model();
    res.status = 200;
    const ServerGauges gauges{ctx.requests_in_flight(), ctx.streams_open()};
    res.set_content(ctx.metrics.render(ctx.model_id(), m ? m->engine : nullptr, gauges), "text/plain; version=0.0.4");
  });
}

}  // namespace plumb::server
