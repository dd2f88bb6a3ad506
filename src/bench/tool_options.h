// What every benchmark tool takes: the server, the model name to send, where the JSON goes, timeouts, the seed.
#pragma once

#include <cstdint>
#include <string>

#include "bench/openai_client.h"
#include "bench/server_url.h"

namespace plumb::bench {

struct ToolOptions {
  std::string url = "http://127.0.0.1:8080";
  std::string model;      // empty: the first model GET /v1/models lists, or none when it lists nothing
  std::string json_path;  // empty: no JSON file
  double timeout_s = 600;
  std::string api_key;
  uint64_t seed = 1;
};

// The server's URL, the client settings and the model name, resolved once per run.
struct Target {
  ServerUrl url;
  ClientOptions client;
  std::string model;
};

// Throws plumb::Error when the URL is malformed or the server does not answer GET /v1/models.
Target resolve_target(const ToolOptions& options);

}  // namespace plumb::bench
