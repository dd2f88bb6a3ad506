#include "bench/sse.h"

namespace plumb::bench {

std::vector<std::string> SseParser::feed(std::string_view bytes) {
  pending_.append(bytes);
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t end = pending_.find('\n', start);
    if (end == std::string::npos) break;
    std::string_view line(pending_.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    take_line(line, out);
    start = end + 1;
  }
  pending_.erase(0, start);
  return out;
}

bool SseParser::has_partial_event() const { return has_data_ || !pending_.empty(); }

void SseParser::take_line(std::string_view line, std::vector<std::string>& out) {
  if (line.empty()) {
    if (has_data_) out.push_back(std::move(data_));
    data_.clear();
    has_data_ = false;
    return;
  }
  if (line.front() == ':') return;
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field != "data") return;
  has_data_ = true;
  if (!data_.empty()) data_.push_back('\n');
  data_.append(value);
}

}  // namespace plumb::bench
