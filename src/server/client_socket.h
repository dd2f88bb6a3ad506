// Noticing that an HTTP client went away while its request generates. cpp-httplib 0.11 gives handlers no
// handle on the connection, so the handler finds its own socket among the process's descriptors by the
// connection's addresses (unique among live connections) and polls it for a hang-up. The descriptor stays
// valid for as long as the handler runs: the thread running the handler is the one that owns and closes it.
#pragma once

#include <string>

namespace plumb::server {

class ClientSocket {
 public:
  // Finds the connection whose local port is `local_port` and whose peer is remote_addr:remote_port.
  ClientSocket(int local_port, const std::string& remote_addr, int remote_port);

  bool found() const { return fd_ >= 0; }
  // True once the peer has closed or reset the connection (false when the socket was not found).
  bool peer_closed() const;

 private:
  int fd_ = -1;
};

}  // namespace plumb::server
