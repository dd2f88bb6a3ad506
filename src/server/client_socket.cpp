#include "server/client_socket.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>

namespace plumb::server {
namespace {

// The numeric address and port of a socket address, as httplib reports them.
bool address_of(const sockaddr_storage& ss, std::string& addr, int& port) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(ss);
    if (!inet_ntop(AF_INET, &a.sin_addr, buf, sizeof(buf))) return false;
    port = ntohs(a.sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(ss);
    if (!inet_ntop(AF_INET6, &a.sin6_addr, buf, sizeof(buf))) return false;
    port = ntohs(a.sin6_port);
  } else {
    return false;
  }
  addr = buf;
  return true;
}

bool matches(int fd, int local_port, const std::string& remote_addr, int remote_port) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  sockaddr_storage local{}, peer{};
  socklen_t local_len = sizeof(local), peer_len = sizeof(peer);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0) return false;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) return false;
  std::string local_addr, peer_addr;
  int lport = -1, pport = -1;
  if (!address_of(local, local_addr, lport) || !address_of(peer, peer_addr, pport)) return false;
  return lport == local_port && pport == remote_port && peer_addr == remote_addr;
}

}  // namespace

ClientSocket::ClientSocket(int local_port, const std::string& remote_addr, int remote_port) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return;
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(dir)) continue;
    if (matches(int(fd), local_port, remote_addr, remote_port)) {
      fd_ = int(fd);
      break;
    }
  }
  closedir(dir);
}

bool ClientSocket::peer_closed() const {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

}  // namespace plumb::server
