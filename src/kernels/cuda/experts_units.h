// How an experts pass kernel's warps share a launch's items (fp4_experts_pass.cuh), in a header so host tests check
// the numbering the GPU runs. A launch's items (active slot, tile, split) go in units: a K-split pair's two items
// (splits == 2; the pair's two warps are neighbours in a block and sum their splits at a barrier) or one. In its
// first turn each warp takes one unit; a capped grid's warps then take further units from the launch's counter,
// numbered on from the first turn's.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace plumb::cuda {

// Items a unit: a K-split pair's two, else one.
PLUMB_HOST_DEVICE int items_per_unit(int64_t splits) { return splits == 2 ? 2 : 1; }

// The warp number a pass kernel's item numbering uses for its block's hardware warp `warp`: itself, or with pairs
// apart (PLUMB_EXPERTS_PAIRS_APART) numbers 0 1 2 3 on warps 0 2 1 3, so that a K-split pair (numbers 2i, 2i + 1)
// is warps i and i + 2. A block's warp w runs on its multiprocessor's scheduler (w + r) % 4, r the block's place
// there (session 30 call 2's probe; session 31's: in a 16-warp block warps j and 0 share one iff j % 4 == 0), so a
// pair apart sits on two schedulers apart, and where a launch's pairs do not fill the first turn the
// multiprocessor's busy pairs fall evenly on its four.
PLUMB_HOST_DEVICE int numbered_warp(int warp, bool pairs_apart) {
  return pairs_apart ? (warp % 2) * 2 + warp / 2 : warp;
}

// The unit warp `warp` of block `block` takes in its first turn, of blocks * warps_per_block / per_unit (each taken
// once; a pair's two warps take the same). Block by block: block b holds units b * U .. b * U + U - 1 (U a block's).
// Spread: unit u is in block u % blocks, so the lowest units, the launch's active ones, reach every block, however
// the block scheduler places a grid that is wider than a wave; from_end: in block blocks - 1 - u % blocks, so where
// the units do not fill the turn the blocks with one more are the last (fp4_experts.cu, PLUMB_EXPERTS_DEAL_FROM_END).
PLUMB_HOST_DEVICE int first_turn_unit(int block, int warp, int blocks, int warps_per_block, int per_unit, bool spread,
                                      bool from_end = false) {
  int unit = (block * warps_per_block + warp) / per_unit;
  if (spread) unit = (warp / per_unit) * blocks + (from_end ? blocks - 1 - block : block);
  return unit;
}

}  // namespace plumb::cuda
