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

// The unit warp `warp` of block `block` takes in its first turn, of blocks * warps_per_block / per_unit (each taken
// once; a pair's two warps take the same). Block by block: block b holds units b * U .. b * U + U - 1 (U a block's).
// Spread: unit u is in block u % blocks, so the lowest units, the launch's active ones, reach every block, however
// the block scheduler places a grid that is wider than a wave.
PLUMB_HOST_DEVICE int first_turn_unit(int block, int warp, int blocks, int warps_per_block, int per_unit,
                                      bool spread) {
  int unit = (block * warps_per_block + warp) / per_unit;
  if (spread) unit = (warp / per_unit) * blocks + block;
  return unit;
}

}  // namespace plumb::cuda
