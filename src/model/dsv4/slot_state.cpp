// Allocating the per-slot state buffers.
#include "model/dsv4/slot_state.h"

#include "base/error.h"

namespace plumb::dsv4 {

SlotStates::SlotStates(const Config& config, const StateShape& shape, kernels::Backend& backend) : shape_(shape) {
  const int64_t slots = shape.slots;
  for (const BlockSpec& spec : config.blocks) {
    BlockState b;
    b.window = make(backend, slots * shape.window_ring_rows(), config.head_dim);
    if (spec.compress_ratio > 0) {
      const int64_t r = spec.compress_ratio, coff = spec.attention == AttentionKind::csa ? 2 : 1;
      b.compressor.kv = make(backend, slots * shape.compressor_ring_rows(r), coff * config.head_dim);
      b.compressor.score = make(backend, slots * shape.compressor_ring_rows(r), coff * config.head_dim);
      b.compressor.rows = make(backend, slots * shape.compressed_rows(r), config.head_dim);
      if (spec.attention == AttentionKind::csa) {
        b.indexer.kv = make(backend, slots * shape.compressor_ring_rows(r), 2 * config.index_head_dim);
        b.indexer.score = make(backend, slots * shape.compressor_ring_rows(r), 2 * config.index_head_dim);
        b.indexer.rows = make(backend, slots * shape.compressed_rows(r), config.index_head_dim);
      }
    }
    blocks_.push_back(b);
  }
  const int64_t streams = config.hc_mult * config.hidden_size;
  x_ring_ = make(backend, slots * shape.x_ring_rows(), streams);
  draft_out_ = make(backend, slots, streams);
  meta_.resize(size_t(slots));
  for (int32_t s = 0; s < int32_t(slots); ++s) reset(s);
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
