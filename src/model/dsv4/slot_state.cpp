// Allocating the per-slot state buffers.
#include "model/dsv4/slot_state.h"

#include "base/error.h"

namespace plumb::dsv4 {

namespace {

// Every state buffer in allocation order, as fn(rows, cols) returning the tensor; one layout for the constructor
// and for the memory plan.
template <typename Fn>
void for_each_buffer(const Config& config, const StateShape& shape, std::vector<BlockState>* blocks,
                     kernels::Tensor* x_ring, kernels::Tensor* draft_out, Fn&& fn) {
  const int64_t slots = shape.slots;
  for (const BlockSpec& spec : config.blocks) {
    BlockState b;
    b.window = fn(slots * shape.window_ring_rows(), config.head_dim);
    if (spec.compress_ratio > 0) {
      const int64_t r = spec.compress_ratio, coff = spec.attention == AttentionKind::csa ? 2 : 1;
      b.compressor.kv = fn(slots * shape.compressor_ring_rows(r), coff * config.head_dim);
      b.compressor.score = fn(slots * shape.compressor_ring_rows(r), coff * config.head_dim);
      b.compressor.rows = fn(slots * shape.compressed_rows(r), config.head_dim);
      if (spec.attention == AttentionKind::csa) {
        b.indexer.kv = fn(slots * shape.compressor_ring_rows(r), 2 * config.index_head_dim);
        b.indexer.score = fn(slots * shape.compressor_ring_rows(r), 2 * config.index_head_dim);
        b.indexer.rows = fn(slots * shape.compressed_rows(r), config.index_head_dim);
      }
    }
    if (blocks) blocks->push_back(b);
  }
  const int64_t streams = config.hc_mult * config.hidden_size;
  const kernels::Tensor x = fn(slots * shape.x_ring_rows(), streams);
  const kernels::Tensor d = fn(slots, streams);
  if (x_ring) *x_ring = x;
  if (draft_out) *draft_out = d;
}

}  // namespace

SlotStates::SlotStates(const Config& config, const StateShape& shape, kernels::Backend& backend) : shape_(shape) {
  for_each_buffer(config, shape, &blocks_, &x_ring_, &draft_out_,
                  [&](int64_t rows, int64_t cols) { return make(backend, rows, cols); });
  meta_.resize(size_t(shape.slots));
  for (int32_t s = 0; s < int32_t(shape.slots); ++s) reset(s);
}

size_t SlotStates::bytes_needed(const Config& config, const StateShape& shape, size_t element_size) {
  size_t total = 0;
  for_each_buffer(config, shape, nullptr, nullptr, nullptr, [&](int64_t rows, int64_t cols) {
    total += size_t(rows * cols) * element_size;
    return kernels::Tensor{};
  });
  return total;
}

kernels::Tensor SlotStates::make(kernels::Backend& backend, int64_t rows, int64_t cols) {
  const DType dtype = backend.act_dtype();
  buffers_.push_back(backend.allocate(size_t(rows * cols) * dtype_size(dtype)));
  return buffers_.back().tensor(dtype, rows, cols);
}

void SlotStates::reset(int32_t slot) {
  SlotMeta& m = meta_[size_t(slot)];
  m = SlotMeta{};
  m.x_tag.assign(size_t(shape_.x_ring_rows()), -1);
}

bool SlotStates::has_x(int32_t slot, int64_t position) const {
  const SlotMeta& m = meta_[size_t(slot)];
  return position >= 0 && position < m.position && m.x_tag[size_t(position % shape_.x_ring_rows())] == position;
}

size_t SlotStates::bytes() const {
  size_t total = 0;
  for (const auto& b : buffers_) total += b.bytes();
  return total;
}

}  // namespace plumb::dsv4
