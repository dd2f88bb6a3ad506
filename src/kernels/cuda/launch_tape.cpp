#include "kernels/cuda/launch_tape.h"

#include <cstring>

#include "base/error.h"

namespace plumb::cuda {
namespace {

constexpr size_t kArgAlign = 16;  // each argument's copy starts aligned for any parameter type

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

void LaunchTape::record(const KernelCall& call) {
  PLUMB_CHECK(call.func != nullptr && call.count >= 0);
  Entry e{call.func, call.grid, call.block, call.shared_bytes, uint32_t(arg_offsets_.size()), uint32_t(call.count),
          call.name};
  const kernels::Follows f = order_.next(int32_t(entries_.size()));
  e.after = f.after;
  e.also = f.also;
  for (int i = 0; i < call.count; ++i) {
    const size_t at = (bytes_.size() + kArgAlign - 1) / kArgAlign * kArgAlign;
    bytes_.resize(at + call.sizes[i]);
    std::memcpy(bytes_.data() + at, call.args[i], call.sizes[i]);
    arg_offsets_.push_back(uint32_t(at));
    arg_sizes_.push_back(call.sizes[i]);
  }
  entries_.push_back(e);
}

void LaunchTape::clear() {
  entries_.clear();
  arg_offsets_.clear();
  arg_sizes_.clear();
  bytes_.clear();
  order_.clear();  // a lane still open stays open: its next launch simply has nothing to follow here
}

void* const* LaunchTape::args(size_t i) {
  const Entry& e = entries_[i];
  pointers_.resize(e.arg_count + 1);
  for (uint32_t a = 0; a < e.arg_count; ++a) pointers_[a] = bytes_.data() + arg_offsets_[e.first_arg + a];
  return pointers_.data();
}

bool LaunchTape::same_shape(const LaunchTape& other) const {
  if (entries_.size() != other.entries_.size() || arg_sizes_ != other.arg_sizes_) return false;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry &a = entries_[i], &b = other.entries_[i];
    if (a.func != b.func || !(a.grid == b.grid) || !(a.block == b.block) || a.shared_bytes != b.shared_bytes ||
        a.arg_count != b.arg_count || a.after != b.after || a.also != b.also)
      return false;
  }
  return true;
}

uint64_t LaunchTape::shape_hash() const {
  uint64_t h = entries_.size();
  for (const Entry& e : entries_) {
    h = mix(h, reinterpret_cast<uintptr_t>(e.func));
    for (unsigned v : {e.grid.x, e.grid.y, e.grid.z, e.block.x, e.block.y, e.block.z}) h = mix(h, v);
    h = mix(h, e.shared_bytes);
    h = mix(h, e.arg_count);
    h = mix(h, uint64_t(int64_t(e.after)));
    for (int32_t a : e.also) h = mix(h, uint64_t(int64_t(a)));
  }
  for (uint32_t s : arg_sizes_) h = mix(h, s);
  return h;
}

bool LaunchTape::same_args(size_t i, const LaunchTape& other) const {
  const Entry& e = entries_[i];
  for (uint32_t a = e.first_arg; a < e.first_arg + e.arg_count; ++a)
    if (std::memcmp(bytes_.data() + arg_offsets_[a], other.bytes_.data() + other.arg_offsets_[a], arg_sizes_[a]) != 0)
      return false;
  return true;
}

void LaunchTape::copy_args(size_t i, const LaunchTape& other) {
  const Entry& e = entries_[i];
  for (uint32_t a = e.first_arg; a < e.first_arg + e.arg_count; ++a)
    std::memcpy(bytes_.data() + arg_offsets_[a], other.bytes_.data() + other.arg_offsets_[a], arg_sizes_[a]);
}

}  // namespace plumb::cuda
