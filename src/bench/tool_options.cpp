#include "bench/tool_options.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "base/error.h"

namespace plumb::bench {

Target resolve_target(const ToolOptions& options) {
  Target t;
  t.url = parse_server_url(options.url);
  t.client.timeout_s = options.timeout_s;
  t.client.api_key = options.api_key;
  t.model = options.model;

  httplib::Client client(t.url.host, t.url.port);
  client.set_connection_timeout(std::chrono::seconds(10));
  client.set_read_timeout(std::chrono::seconds(60));
  if (!t.client.api_key.empty()) client.set_bearer_token_auth(t.client.api_key);
  const std::string path = t.url.api("/models");
  auto res = client.Get(path.c_str());
  if (!res) fail("{}: cannot reach the server ({})", t.url.text(), httplib::to_string(res.error()));
  if (res->status != 200) fail("GET {}{} answered HTTP {}: {}", t.url.text(), "/v1/models", res->status, res->body.substr(0, 300));
  if (t.model.empty()) {
    const auto j = nlohmann::json::parse(res->body, nullptr, false);
    if (j.is_object() && j.contains("data") && j["data"].is_array() && !j["data"].empty() &&
        j["data"][0].contains("id") && j["data"][0]["id"].is_string())
      t.model = j["data"][0]["id"].get<std::string>();
  }
  return t;
}

}  // namespace plumb::bench
