// Counter-based random numbers (Philox4x32-10): a draw is a pure function of (seed, counter), so sampling a
// position gives the same number whatever else runs in the round, with or without drafts, on any backend.
#pragma once

#include <array>
#include <cstdint>

namespace plumb {

#if defined(__CUDACC__)
#define PLUMB_HD __host__ __device__
#else
#define PLUMB_HD
#endif

PLUMB_HD inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(kM0) * ctr[0];
    const uint64_t p1 = uint64_t(kM1) * ctr[2];
    ctr = {uint32_t(p1 >> 32) ^ ctr[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ ctr[3] ^ key[1], uint32_t(p0)};
    key = {key[0] + kW0, key[1] + kW1};
  }
  return ctr;
}

// A uniform double in [0, 1) with 53 random bits, keyed by (seed, position, stream).
PLUMB_HD inline double keyed_uniform(uint64_t seed, uint64_t position, uint32_t stream = 0) {
  const auto r = philox4x32_10({uint32_t(position), uint32_t(position >> 32), stream, 0u},
                               {uint32_t(seed), uint32_t(seed >> 32)});
  const uint64_t bits = (uint64_t(r[0]) << 32 | r[1]) >> 11;
  return double(bits) * (1.0 / 9007199254740992.0);
}

// splitmix64: a fast sequential generator for synthetic data (weights, benchmark inputs), 8 bytes a draw.
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace plumb
