// plumb's top-k order on the GPU (the indexer's selection, the router's picks): value descending, NaN after every
// number, ties by ascending index. In a header so the host tests check the GPU's code.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/cuda/host_device.h"

namespace plumb::cuda {

// The device's isnan and bit cast where they exist, so the kernels' code is what it was before this header.
PLUMB_HOST_DEVICE bool is_nan(float v) {
#if defined(__CUDA_ARCH__)
  return isnan(v);
#else
  return std::isnan(v);
#endif
}
PLUMB_HOST_DEVICE uint32_t float_bits(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(v);
#else
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
#endif
}

// True when (va, ia) ranks before (vb, ib).
PLUMB_HOST_DEVICE bool ranks_before(float va, int32_t ia, float vb, int32_t ib) {
  const bool na = is_nan(va), nb = is_nan(vb);
  if (na != nb) return nb;
  if (!na && va != vb) return va > vb;
  return ia < ib;
}

// The same order as one unsigned compare: rank_key(a, ia) < rank_key(b, ib) exactly when (a, ia) ranks before
// (b, ib), for ia, ib >= 0. High word: the bits of -v made to ascend as unsigned (+0 and -0 alike), all ones for NaN;
// low word: the index.
PLUMB_HOST_DEVICE uint64_t rank_key(float v, int32_t i) {
  uint32_t order = 0xffffffffu;
  if (!is_nan(v)) {
    const uint32_t u = float_bits(v == 0.0f ? 0.0f : v);
    order = ~((u & 0x80000000u) ? ~u : (u | 0x80000000u));
  }
  return (uint64_t(order) << 32) | uint32_t(i);
}

}  // namespace plumb::cuda
