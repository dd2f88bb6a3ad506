// The scratch arena: first fit over kept chunks, stack-wise release by mark.
#include "model/dsv4/workspace.h"

#include <algorithm>

#include "base/error.h"

namespace plumb::dsv4 {
namespace {

constexpr size_t kAlignment = 256;             // what cudaMalloc gives: enough for any vector access
constexpr size_t kMinChunkBytes = size_t(8) << 20;  // a handful of chunks covers a round

size_t aligned(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

ScratchArena::Mark ScratchArena::begin() { return {chunk_, offset_, ++depth_}; }

void ScratchArena::end(const Mark& m) {  // scopes end innermost first, so m is the innermost mark
  depth_ = m.depth - 1;
  chunk_ = m.chunk;
  offset_ = m.offset;
}

kernels::Tensor ScratchArena::take(const Mark& owner, DType dtype, int64_t rows, int64_t cols) {
  // Taking for an outer workspace while an inner one lives would hand the inner's end() the outer's tensor.
  PLUMB_CHECK(owner.depth == depth_);
  const size_t bytes = aligned(std::max<size_t>(size_t(rows * cols) * dtype_size(dtype), 1));
  // The current chunk from the free byte, else the first later chunk that fits, else a new chunk at the end.
  size_t at = chunk_;
  if (at < chunks_.size() && offset_ + bytes > chunks_[at].bytes()) {
    offset_ = 0;
    for (++at; at < chunks_.size() && chunks_[at].bytes() < bytes;) ++at;
  }
  if (at >= chunks_.size()) {
    chunks_.push_back(backend_.allocate(std::max(bytes, kMinChunkBytes)));
    at = chunks_.size() - 1;
    offset_ = 0;
  }
  chunk_ = at;
  const kernels::Tensor t =
      kernels::Tensor::of(static_cast<std::byte*>(chunks_[at].data()) + offset_, dtype, rows, cols);
  offset_ += bytes;
  if (poison_) {
    const std::vector<uint8_t> nan_bytes(size_t(rows * cols) * dtype_size(dtype), 0xFF);
    backend_.upload(nan_bytes.data(), t);
  }
  return t;
}

size_t ScratchArena::bytes_held() const {
  size_t total = 0;
  for (const auto& c : chunks_) total += c.bytes();
  return total;
}

}  // namespace plumb::dsv4
