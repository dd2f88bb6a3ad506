// Server-sent events, the framing of OpenAI streams: bytes arrive in arbitrary pieces, events are separated by a
// blank line, and an event's payload is its `data:` lines joined by newlines. Comments (`:`) and other fields
// (event, id, retry) carry nothing the benchmarks read and are dropped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace plumb::bench {

class SseParser {
 public:
  // Appends `bytes` and returns the data of every event completed by them, in order.
  std::vector<std::string> feed(std::string_view bytes);
  // Bytes of an event not yet ended by a blank line (a stream that stops here was cut short).
  bool has_partial_event() const;

 private:
  void take_line(std::string_view line, std::vector<std::string>& out);

  std::string pending_;        // bytes after the last complete line
  std::string data_;           // the current event's data lines so far
  bool has_data_ = false;      // the current event has a data line (events without one are not dispatched)
};

}  // namespace plumb::bench
