// Requests that start together: one thread per request, all released by one barrier once every thread is ready,
// so a concurrent cell measures the server with all its streams in flight from the first round.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "bench/openai_client.h"
#include "bench/server_url.h"

namespace plumb::bench {

struct StreamCall {
  std::string path;
  nlohmann::json body;
};

std::vector<StreamedReply> run_together(const ServerUrl& url, const std::vector<StreamCall>& calls,
                                        const ClientOptions& options);

}  // namespace plumb::bench
