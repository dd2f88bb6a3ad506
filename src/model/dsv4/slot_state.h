// Per-slot state of the DeepSeek-V4 forward, in backend buffers sized at open (slots, max_context, max_rows_per_slot),
// plus host-side bookkeeping. Everything is indexed by absolute position, so rewinding is setting the position back:
//
//   window ring       per block (MTP block included): W + R rows per slot, position p at row p mod (W + R), so a
//                     launch of up to R rows never overwrites a row an earlier row of it still needs, and a rewind of
//                     up to R tokens finds the older rows intact.
//   compressor ring   per compressed block: the per-token projections K and Z (position bias included) of the last
//                     R + 2r tokens, position p at row p mod (R + 2r): enough for the current and previous group after
//                     any rewind of up to R tokens.
//   compressed rows   row j of slot s at s * (max_context / r) + j; the first floor(position / r) are valid.
//   indexer           CSA blocks: the indexer compressor's ring and its rows, likewise.
//   MTP               final residual streams X_p of the last R + 1 positions (ring, tagged by position), and the MTP
//                     block's output streams of the slot's last draft row (for chained drafts).
//
// (W = sliding_window, R = max_rows_per_slot, r = the block's compress ratio.)
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/backend.h"
#include "model/dsv4/config.h"

namespace plumb::dsv4 {

struct StateShape {
  int64_t slots = 0, max_rows = 0, max_context = 0;
  int64_t window = 0;  // W
  int64_t window_ring_rows() const { return window + max_rows; }
  int64_t compressor_ring_rows(int64_t ratio) const { return max_rows + 2 * ratio; }
  int64_t compressed_rows(int64_t ratio) const { return max_context / ratio; }
  int64_t x_ring_rows() const { return max_rows + 1; }
};

struct CompressorState {
  kernels::Tensor kv, score;  // [slots * ring rows, (overlap ? 2 : 1) * width]
  kernels::Tensor rows;       // [slots * compressed rows, width]
};

struct BlockState {
  kernels::Tensor window;      // [slots * window ring rows, head_dim]
  CompressorState compressor;  // ratio > 0
  CompressorState indexer;     // CSA
};

// Host bookkeeping of one slot.
struct SlotMeta {
  int64_t position = 0;       // tokens in the state
  int64_t rewind_floor = 0;   // rewinds may not reach below this (a restore point: older rows were not restored)
  int64_t mtp_position = 0;   // MTP rows of positions below this are in the MTP block's window ring
  std::vector<int64_t> x_tag; // position whose final streams each X-ring row holds, -1 for none
  int64_t draft_position = -1;  // position of the MTP output held for chaining, -1 for none
};

class SlotStates {
 public:
  SlotStates(const Config& config, const StateShape& shape, kernels::Backend& backend);
  // Bytes the buffers of this shape take (the memory plan, before allocating).
  static size_t bytes_needed(const Config& config, const StateShape& shape, size_t element_size);

  const StateShape& shape() const { return shape_; }
  BlockState& block(int64_t b) { return blocks_[size_t(b)]; }
  const BlockState& block(int64_t b) const { return blocks_[size_t(b)]; }
  const kernels::Tensor& x_ring() const { return x_ring_; }      // [slots * (R + 1), hc * hidden]
  const kernels::Tensor& draft_out() const { return draft_out_; }  // [slots, hc * hidden]
  SlotMeta& meta(int32_t slot) { return meta_[size_t(slot)]; }
  const SlotMeta& meta(int32_t slot) const { return meta_[size_t(slot)]; }
  void reset(int32_t slot);

  int64_t window_row(int32_t slot, int64_t position) const {
    return slot * shape_.window_ring_rows() + position % shape_.window_ring_rows();
  }
  int64_t compressor_row(int32_t slot, int64_t position, int64_t ratio) const {
    return slot * shape_.compressor_ring_rows(ratio) + position % shape_.compressor_ring_rows(ratio);
  }
  int64_t compressed_row(int32_t slot, int64_t index, int64_t ratio) const {
    return slot * shape_.compressed_rows(ratio) + index;
  }
  int64_t x_row(int32_t slot, int64_t position) const {
    return slot * shape_.x_ring_rows() + position % shape_.x_ring_rows();
  }
  bool has_x(int32_t slot, int64_t position) const;  // final streams of `position` are held and still valid
  size_t bytes() const;                               // backend memory held

 private:
  kernels::Tensor make(kernels::Backend& backend, int64_t rows, int64_t cols);

  StateShape shape_;
  std::vector<kernels::Buffer> buffers_;
  std::vector<BlockState> blocks_;
  kernels::Tensor x_ring_, draft_out_;
  std::vector<SlotMeta> meta_;
};

}  // namespace plumb::dsv4
