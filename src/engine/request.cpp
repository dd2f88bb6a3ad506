#include "engine/request.h"

namespace plumb::engine {

std::string_view finish_reason_name(FinishReason r) {
  switch (r) {
    case FinishReason::finish_stop: return "stop";
    case FinishReason::finish_length: return "length";
    case FinishReason::finish_cancelled: return "cancelled";
    case FinishReason::finish_error: return "error";
  }
  return "error";
}

void RequestHandle::push(RequestEvent ev) {
  ev.emitted = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    if (ev.finished) finished_ = true;
    events_.push_back(std::move(ev));
  }
  ready_.notify_all();
}

bool RequestHandle::finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

std::optional<RequestEvent> RequestHandle::next_event(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!ready_.wait_for(lock, timeout, [&] { return !events_.empty(); })) return std::nullopt;
  RequestEvent ev = std::move(events_.front());
  events_.pop_front();
  return ev;
}

void join_event(RequestEvent& all, RequestEvent&& ev) {
  for (auto& t : ev.tokens) all.tokens.push_back(std::move(t));
  all.text += ev.text;
  if (!ev.finished) return;
  all.finished = true;
  all.reason = ev.reason;
  all.error = std::move(ev.error);
  all.stats = std::move(ev.stats);
}

RequestEvent RequestHandle::wait_all() {
  RequestEvent all;
  while (!all.finished) {
    auto ev = next_event(std::chrono::milliseconds(1000));
    if (ev) join_event(all, std::move(*ev));
  }
  return all;
}

}  // namespace plumb::engine
