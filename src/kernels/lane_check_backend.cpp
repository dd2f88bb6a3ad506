// The lane checker (lane_check_backend.h): an observer of the observed backend that takes each op's bytes read and
// written and checks whether it follows every earlier op that touched them. Its direct predecessors are LaneOrder's
// (lane_order.h), as in the CUDA graph; vector clocks carry them on: an op's clock is the largest of its
// predecessors' with its own lane's count raised, and op A precedes op B when B's clock has reached A's count on A's
// lane.
#include "kernels/lane_check_backend.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "base/dtype.h"
#include "kernels/lane_order.h"
#include "kernels/observed_backend.h"

namespace plumb::kernels {
namespace {

constexpr size_t kMaxHazards = 64;  // enough to see the pattern

struct Range {
  uintptr_t begin = 0, end = 0;
};
using Clock = std::array<uint32_t, kLanes>;

struct Op {
  const char* name;
  int lane;
  Clock clock;
  std::vector<Range> reads, writes;
};

// The bytes a tensor view spans (its rows' columns and the stride between them).
Range span_of(const Tensor& t) {
  if (t.rows <= 0 || t.cols <= 0) return {};
  const uintptr_t at = reinterpret_cast<uintptr_t>(t.data), size = dtype_size(t.dtype);
  return {at, at + uintptr_t((t.rows - 1) * t.stride + t.cols) * size};
}
// The bytes of the listed rows only (copy_rows touches those).
std::vector<Range> rows_of(const Tensor& t, std::span<const int64_t> rows) {
  std::vector<Range> out;
  const uintptr_t at = reinterpret_cast<uintptr_t>(t.data), size = dtype_size(t.dtype);
  for (int64_t r : rows)
    out.push_back({at + uintptr_t(r * t.stride) * size, at + uintptr_t(r * t.stride + t.cols) * size});
  return out;
}
bool overlap(const std::vector<Range>& a, const std::vector<Range>& b) {
  for (const Range& x : a)
    for (const Range& y : b)
      if (x.begin < y.end && y.begin < x.end && x.begin < x.end && y.begin < y.end) return true;
  return false;
}

// Sees every op through the observed backend (observed_backend.h) and checks it against the earlier ops it may run
// beside.
class LaneChecker final : public OpObserver {
 public:
  explicit LaneChecker(LaneReport* report) : report_(*report) {}

  void accesses(const char* op, const OpAccess& a) override {
    if (a.src) {
      check(op, rows_of(*a.src, a.src_rows), rows_of(*a.dst, a.dst_rows));
    } else {
      check(op, spans(a.reads), spans(a.writes));
    }
  }
  void host_sync() override {  // everything so far has finished (the CUDA backend flushes and waits here)
    ops_.clear();
    order_.clear();
  }
  void lane_hint(LaneHint hint, int lane) override {
    if (hint == LaneHint::begin) order_.begin_lane(lane);
    if (hint == LaneHint::end) order_.end_lane();
    if (hint == LaneHint::join) order_.join_lanes();
  }

 private:
  static std::vector<Range> spans(std::initializer_list<const Tensor*> ts) {
    std::vector<Range> out;
    for (const Tensor* t : ts)
      if (t) out.push_back(span_of(*t));
    return out;
  }

  // Records the op with its predecessors, then compares it with every earlier op it does not follow.
  void check(const char* name, std::vector<Range> reads, std::vector<Range> writes) {
    const int lane = order_.lane();
    Op op{name, lane, {}, std::move(reads), std::move(writes)};
    const Follows f = order_.next(int32_t(ops_.size()));
    const auto follow = [&](int32_t b) {
      if (b >= 0)
        for (size_t l = 0; l < size_t(kLanes); ++l) op.clock[l] = std::max(op.clock[l], ops_[size_t(b)].clock[l]);
    };
    follow(f.after);
    for (int32_t b : f.also) follow(b);
    op.clock[size_t(lane)] = ++count_[size_t(lane)];
    for (const Op& a : ops_) {
      if (a.clock[size_t(a.lane)] <= op.clock[size_t(a.lane)]) continue;  // op follows a
      const char* what = overlap(a.writes, op.writes)  ? "both write"
                         : overlap(a.writes, op.reads) ? "reads what the earlier writes"
                         : overlap(a.reads, op.writes) ? "writes what the earlier reads"
                                                       : nullptr;
      if (what && report_.hazards.size() < kMaxHazards)
        report_.hazards.push_back(std::string(op.name) + " (lane " + std::to_string(op.lane) + ") " + what + ": " +
                                  a.name + " (lane " + std::to_string(a.lane) + "), which it does not follow");
    }
    ++report_.ops[size_t(lane)];
    ops_.push_back(std::move(op));
  }

  LaneReport& report_;
  std::vector<Op> ops_;  // since the last host sync, numbered as order_ numbers them
  LaneOrder order_;
  Clock count_{};
};

}  // namespace

std::unique_ptr<Backend> make_lane_check_backend(std::unique_ptr<Backend> inner, LaneReport* report) {
  return make_observed_backend(std::move(inner), std::make_unique<LaneChecker>(report));
}

}  // namespace plumb::kernels
