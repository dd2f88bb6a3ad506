// The experts kernel's e2m1 -> e4m3 widening, in a header so host tests run the same code the GPU runs.
// A word as shuffle_fp4_matrix stores it holds eight e2m1 codes: byte b has value b in its low nibble and value
// b + 4 in its high one. The low nibbles widen to one word of four e4m3 bytes (values 0..3), the high nibbles to
// another (values 4..7), each value times 2^-6, exactly: the magnitude bits eem move to e4m3's exponent ee and
// mantissa m00 (ee = 0 lands on e4m3's subnormals, as e2m1's does), the sign to bit 7. Callers multiply the
// activation scale by 2^6 (kFp4Unscale), so every product and sum is the release's, scaled by powers of two that
// cancel.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace plumb::cuda {

constexpr float kFp4Unscale = 64.0f;

// Where a lane's byte i (0..31) of a super-block's 1 KiB lies (shuffle_fp4_matrix writes it, the kernel reads it).
// Coalesced: a warp's load of its lanes' bytes 0-15 is one contiguous 512-byte run, and bytes 16-31 the next, so
// each 32-byte sector a load touches is read whole by it; interleaved (lane * 32 + i): each load reads half of each
// of 32 sectors and the other load the other half.
PLUMB_HOST_DEVICE int fp4_lane_byte(int lane, int i, bool coalesced) {
  return coalesced ? (i / 16) * 512 + lane * 16 + i % 16 : lane * 32 + i;
}

PLUMB_HOST_DEVICE uint32_t e2m1_low_nibbles_to_e4m3(uint32_t v) {
  return ((v & 0x07070707u) << 2) | ((v & 0x08080808u) << 4);
}

PLUMB_HOST_DEVICE uint32_t e2m1_high_nibbles_to_e4m3(uint32_t v) {
  return ((v >> 2) & 0x1C1C1C1Cu) | (v & 0x80808080u);
}

}  // namespace plumb::cuda
