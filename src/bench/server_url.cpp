#include "bench/server_url.h"

#include <fmt/format.h>

#include <charconv>

#include "base/error.h"

namespace plumb::bench {

std::string ServerUrl::text() const { return fmt::format("http://{}:{}{}", host, port, prefix); }

ServerUrl parse_server_url(std::string_view url) {
  constexpr std::string_view scheme = "http://";
  if (url.substr(0, scheme.size()) != scheme) {
    if (url.substr(0, 8) == "https://") fail("--url {}: https is not supported; give the server's http:// address", url);
    fail("--url {}: expected http://host:port", url);
  }
  std::string_view rest = url.substr(scheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);

  ServerUrl out;
  // A bracketed IPv6 literal ("[::1]:8080") has colons of its own.
  const size_t host_end = authority.empty() || authority.front() != '[' ? 0 : authority.find(']');
  const size_t colon = authority.find(':', host_end == std::string_view::npos ? authority.size() : host_end);
  if (colon != std::string_view::npos) {
    const std::string_view port = authority.substr(colon + 1);
    int value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535)
      fail("--url {}: port '{}' is not a number from 1 to 65535", url, port);
    out.port = value;
    authority = authority.substr(0, colon);
  }
  if (authority.size() >= 2 && authority.front() == '[' && authority.back() == ']')
    authority = authority.substr(1, authority.size() - 2);
  if (authority.empty()) fail("--url {}: no host", url);
  out.host = std::string(authority);

  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.size() >= 3 && path.substr(path.size() - 3) == "/v1") path.remove_suffix(3);
  out.prefix = std::string(path);
  return out;
}

}  // namespace plumb::bench
