// The FP4 experts kernel's host-side pieces, checked on any machine: shuffle_fp4_matrix puts every value where the
// kernel's MMA fragments read it (the mapping written out here from the m16n8k32 fragment layout the kernel
// documents), and the e2m1 -> e4m3 widening the GPU runs gives each code's value times 2^-6 (the number-format
// decoders of src/base are the reference).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "base/number_formats.h"
#include "kernels/cuda/fp4_experts.h"
#include "kernels/cuda/fp4_widen.h"
#include "test_support.h"

namespace plumb::cuda {
namespace {

// e2m1 code value of element (r, c) of a release-format matrix: two codes per byte, low nibble first.
uint8_t code_at(const std::vector<uint8_t>& codes, int64_t cols, int64_t r, int64_t c) {
  return uint8_t((codes[size_t(r * (cols / 2) + c / 2)] >> (4 * (c % 2))) & 0xF);
}

TEST(Fp4Layout, EveryValueAndScaleLandsWhereTheKernelReadsIt) {
  const int64_t rows = 48, cols = 384, supers = cols / 128, scale_cols = cols / 32;
  std::mt19937 g(11);
  std::vector<uint8_t> codes(size_t(rows * cols / 2)), scales(size_t(rows * scale_cols));
  for (auto& b : codes) b = uint8_t(g());
  for (auto& s : scales) s = uint8_t(g());
  std::vector<uint8_t> out(fp4_shuffled_code_bytes(rows, cols)), out_scales(fp4_shuffled_scale_bytes(rows, cols));
  shuffle_fp4_matrix(codes.data(), scales.data(), rows, cols, out.data(), out_scales.data());

  int64_t checked = 0;
  for (int64_t mt = 0; mt < rows / 16; ++mt) {
    for (int64_t sb = 0; sb < supers; ++sb) {
      const uint8_t* tile = out.data() + (mt * supers + sb) * 1024;
      for (int lane = 0; lane < 32; ++lane) {
        const int gr = lane >> 2, t = lane & 3;
        for (int j = 0; j < 4; ++j) {
          for (int half = 0; half < 2; ++half) {  // the word of row g, then of row g + 8
            const int64_t r = mt * 16 + gr + 8 * half, c0 = sb * 128 + j * 32 + t * 8;
            for (int b = 0; b < 4; ++b) {
              const int i = j * 8 + half * 4 + b;  // the lane's byte; the kernel's two 16-byte loads read 0-15, 16-31
              const int at = fp4_coalesced_layout() ? (i / 16) * 512 + lane * 16 + i % 16 : lane * 32 + i;
              const uint8_t byte = tile[at];
              ASSERT_EQ(byte & 0xF, code_at(codes, cols, r, c0 + b)) << "row " << r << " col " << c0 + b;
              ASSERT_EQ(byte >> 4, code_at(codes, cols, r, c0 + 4 + b)) << "row " << r << " col " << c0 + 4 + b;
              checked += 2;
            }
          }
        }
      }
      for (int r = 0; r < 16; ++r)
        for (int j = 0; j < 4; ++j)
          ASSERT_EQ(out_scales[size_t((mt * supers + sb) * 64 + r * 4 + j)],
                    scales[size_t((mt * 16 + r) * scale_cols + sb * 4 + j)]);
    }
  }
  EXPECT_EQ(checked, rows * cols);  // every value of the matrix was found exactly where expected
}

// Coalesced, a warp's load of its lanes' bytes 0-15 (or 16-31) reads one contiguous 512-byte run, each byte once.
TEST(Fp4Layout, EachOfAWarpsTwoLoadsReadsOneContiguousRun) {
  for (int load = 0; load < 2; ++load) {
    std::vector<int> hits(1024, 0);
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < 16; ++i) ++hits[size_t(fp4_lane_byte(lane, load * 16 + i, true))];
    for (int at = 0; at < 1024; ++at) ASSERT_EQ(hits[size_t(at)], at / 512 == load ? 1 : 0) << "byte " << at;
  }
}

TEST(Fp4Layout, ShapesTheKernelCannotTileAreRefused) {
  std::vector<uint8_t> codes(15 * 64), scales(15 * 4), out(15 * 64), out_scales(15 * 4);
  EXPECT_NE(test::error_of([&] { shuffle_fp4_matrix(codes.data(), scales.data(), 15, 128, out.data(), out_scales.data()); })
                .find("[15, 128]"),
            std::string::npos);
}

// Each output byte of the widening, decoded as e4m3, must be its nibble's e2m1 value times 2^-6, sign included,
// whatever the other bytes of the word hold.
TEST(Fp4Widen, EveryCodeInEveryBytePositionWidensExactly) {
  std::mt19937 g(3);
  for (int position = 0; position < 4; ++position) {
    for (int x = 0; x < 256; ++x) {
      const uint32_t noise = uint32_t(g()) & ~(0xFFu << (8 * position));
      const uint32_t word = noise | (uint32_t(x) << (8 * position));
      const uint8_t low = uint8_t(e2m1_low_nibbles_to_e4m3(word) >> (8 * position));
      const uint8_t high = uint8_t(e2m1_high_nibbles_to_e4m3(word) >> (8 * position));
      const float want_low = e2m1_to_f32(uint8_t(x & 0xF)) / kFp4Unscale;
      const float want_high = e2m1_to_f32(uint8_t(x >> 4)) / kFp4Unscale;
      ASSERT_EQ(e4m3_to_f32(low), want_low) << "byte " << x << " at " << position;
      ASSERT_EQ(std::signbit(e4m3_to_f32(low)), std::signbit(want_low)) << "byte " << x << " at " << position;
      ASSERT_EQ(e4m3_to_f32(high), want_high) << "byte " << x << " at " << position;
      ASSERT_EQ(std::signbit(e4m3_to_f32(high)), std::signbit(want_high)) << "byte " << x << " at " << position;
    }
  }
}

}  // namespace
}  // namespace plumb::cuda
