// Host-side FP4 weight re-layout for the GPU experts kernel (plain C++, no CUDA needed): for each tile of 16 rows
// and each 128-wide K super-block, lane (g, t) of a warp finds its 32 bytes where fp4_lane_byte puts them: for blocks
// j = 0..3 of 32, a word of row g then a word of row g+8, each the values 8t..8t+7 of that block with byte b holding
// value b in its low nibble and value b + 4 in its high one (the kernel widens a word's low and high nibbles to e4m3
// in a few whole-word operations). Scales per tile and super-block as [16 rows][4 blocks]. A pure permutation:
// values and scales are copied, never changed.

#include "base/env_switch.h"
#include "base/error.h"
#include "kernels/cuda/fp4_experts.h"
#include "kernels/cuda/fp4_widen.h"

namespace plumb::cuda {
namespace {

// Four release bytes (values 0..7, low nibble first) -> byte b = value b | value b + 4 << 4.
void interleave_word(const uint8_t* in, uint8_t* out) {
  auto value = [&](int i) { return uint8_t((in[i / 2] >> (4 * (i % 2))) & 0xF); };
  for (int b = 0; b < 4; ++b) out[b] = uint8_t(value(b) | (value(b + 4) << 4));
}

}  // namespace

// PLUMB_EXPERTS_COALESCED=0 keeps each lane's 32 bytes together (an A/B switch; the same values reach the same
// registers, so the same bits). H200, session 26 call 1: the L1 sectors the one-row passes read halved (3.39 M ->
// 1.81 M for gate/up), the L2's did not move (the L1 had merged the two halves) and neither did the one-row passes;
// 16 rows routed apart 468 -> 459 us, the round -1.3% at 16 rows (18 of 24, p 0.02), -0.7% at 4 slots, one row even.
bool fp4_coalesced_layout() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_COALESCED");
  return on;
}

size_t fp4_shuffled_code_bytes(int64_t rows, int64_t cols) { return size_t(rows * cols / 2); }
size_t fp4_shuffled_scale_bytes(int64_t rows, int64_t cols) { return size_t(rows * cols / 32); }

void shuffle_fp4_matrix(const uint8_t* codes, const uint8_t* scales, int64_t rows, int64_t cols, uint8_t* out_codes,
                        uint8_t* out_scales) {
  if (rows % 16 != 0 || cols % 128 != 0) fail("FP4 matrix [{}, {}]: rows must be a multiple of 16 and columns of 128", rows, cols);
  const int64_t supers = cols / 128, row_bytes = cols / 2, scale_cols = cols / 32;
  const bool coalesced = fp4_coalesced_layout();
  uint8_t lane_bytes[32];
  for (int64_t mt = 0; mt < rows / 16; ++mt) {
    for (int64_t sb = 0; sb < supers; ++sb) {
      uint8_t* tile = out_codes + (mt * supers + sb) * 1024;
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane >> 2, t = lane & 3;
        for (int j = 0; j < 4; ++j) {
          const int64_t byte_in_row = sb * 64 + j * 16 + t * 4;  // values 8t..8t+7 of block j
          interleave_word(codes + (mt * 16 + g) * row_bytes + byte_in_row, lane_bytes + j * 8);
          interleave_word(codes + (mt * 16 + g + 8) * row_bytes + byte_in_row, lane_bytes + j * 8 + 4);
        }
        for (int i = 0; i < 32; ++i) tile[fp4_lane_byte(lane, i, coalesced)] = lane_bytes[i];
      }
      uint8_t* st = out_scales + (mt * supers + sb) * 64;
      for (int r = 0; r < 16; ++r)
        for (int j = 0; j < 4; ++j) st[r * 4 + j] = scales[(mt * 16 + r) * scale_cols + sb * 4 + j];
    }
  }
}

}  // namespace plumb::cuda
