#include "server/sse_writer.h"

#include "server/json_fields.h"

namespace plumb::server {

bool SseWriter::write(const std::string& event) {
  if (closed_) return false;
  if (client_.peer_closed() || !sink_.write(event.data(), event.size())) closed_ = true;
  return !closed_;
}

bool SseWriter::send(const nlohmann::ordered_json& chunk) { return write("data: " + dump_json(chunk) + "\n\n"); }

bool SseWriter::send_done() {
  if (!write("data: [DONE]\n\n")) return false;
  sink_.done();
  return true;
}

bool SseWriter::client_gone() {
  if (!closed_ && client_.peer_closed()) closed_ = true;
  return closed_;
}

}  // namespace plumb::server
