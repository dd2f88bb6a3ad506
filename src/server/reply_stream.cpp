#include "server/reply_stream.h"

#include <algorithm>

namespace plumb::server {
namespace {

// Length of the longest suffix of `text` that is a proper prefix of `marker`.
size_t partial_marker_suffix(std::string_view text, std::string_view marker) {
  if (marker.empty()) return 0;
  for (size_t n = std::min(marker.size() - 1, text.size()); n > 0; --n)
    if (text.substr(text.size() - n) == marker.substr(0, n)) return n;
  return 0;
}

size_t trailing_whitespace(std::string_view text) {
  size_t n = 0;
  while (n < text.size()) {
    const char c = text[text.size() - 1 - n];
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') break;
    ++n;
  }
  return n;
}

// The rest of `full` after `sent`, or nothing when `sent` is not its prefix.
std::string remainder(const std::string& full, const std::string& sent) {
  if (full.size() < sent.size() || full.compare(0, sent.size(), sent) != 0) return {};
  return full.substr(sent.size());
}

}  // namespace

ReplySplitter::ReplySplitter(ReplyMarkers markers, bool thinking)
    : markers_(std::move(markers)), phase_(thinking ? Phase::reasoning : Phase::content) {}

ReplySplitter::Delta ReplySplitter::push(std::string_view text) {
  pending_ += text;
  Delta out;
  advance(out);
  sent_reasoning_ += out.reasoning;
  sent_content_ += out.content;
  return out;
}

void ReplySplitter::advance(Delta& out) {
  if (phase_ == Phase::reasoning) {
    const size_t end = pending_.find(markers_.reasoning_end);
    if (end == std::string::npos) {
      const size_t hold = partial_marker_suffix(pending_, markers_.reasoning_end);
      out.reasoning = pending_.substr(0, pending_.size() - hold);
      pending_.erase(0, pending_.size() - hold);
      return;
    }
    out.reasoning = pending_.substr(0, end);
    pending_.erase(0, end + markers_.reasoning_end.size());
    phase_ = Phase::content;
  }
  if (phase_ == Phase::content) {
    const size_t begin = markers_.tool_calls_begin.empty() ? std::string::npos : pending_.find(markers_.tool_calls_begin);
    if (begin != std::string::npos) {
      std::string_view before(pending_.data(), begin);
      out.content = std::string(before.substr(0, before.size() - trailing_whitespace(before)));
      pending_.erase(0, begin);
      phase_ = Phase::tool_calls;
      return;
    }
    std::string_view view(pending_);
    size_t hold = partial_marker_suffix(view, markers_.tool_calls_begin);
    hold += trailing_whitespace(view.substr(0, view.size() - hold));
    out.content = pending_.substr(0, pending_.size() - hold);
    pending_.erase(0, pending_.size() - hold);
  }
}

ReplySplitter::Delta ReplySplitter::finish(const ChatReply& final_reply) {
  Delta out;
  out.reasoning = remainder(final_reply.reasoning_content, sent_reasoning_);
  out.content = remainder(final_reply.content, sent_content_);
  sent_reasoning_ += out.reasoning;
  sent_content_ += out.content;
  pending_.clear();
  return out;
}

}  // namespace plumb::server
