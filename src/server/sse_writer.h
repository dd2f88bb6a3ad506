// Server-sent events for streaming replies: each chunk a "data: {json}\n\n" event, the stream ending with
// "data: [DONE]\n\n". A failed write or a hung-up client marks the writer closed, so the caller cancels.
#pragma once

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "server/client_socket.h"

namespace plumb::server {

class SseWriter {
 public:
  SseWriter(httplib::DataSink& sink, const ClientSocket& client) : sink_(sink), client_(client) {}

  bool send(const nlohmann::ordered_json& chunk);  // false once the client is gone
  bool send_done();                         // "data: [DONE]" and the end of the body
  bool client_gone();                       // checks the connection without writing

 private:
  bool write(const std::string& event);

  httplib::DataSink& sink_;
  const ClientSocket& client_;
  bool closed_ = false;
};

}  // namespace plumb::server
