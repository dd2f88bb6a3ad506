// Where the benchmarked server is: "http://host:port", optionally with a path prefix and a trailing "/v1"
// (both "http://h:8080" and "http://h:8080/v1" name the same OpenAI API, as clients accept either).
#pragma once

#include <string>
#include <string_view>

namespace plumb::bench {

struct ServerUrl {
  std::string host;
  int port = 80;
  std::string prefix;  // path before /v1, without a trailing slash ("" for most servers)

  std::string api(std::string_view path) const { return prefix + "/v1" + std::string(path); }  // api("/models")
  std::string root(std::string_view path) const { return prefix + std::string(path); }          // root("/health")
  std::string text() const;
};

// Throws plumb::Error naming the URL when it is not an http:// URL with a host.
ServerUrl parse_server_url(std::string_view url);

}  // namespace plumb::bench
