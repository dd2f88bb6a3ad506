// Device pieces the FP8 linear's kernels share (fp8_linear.cu: the two-launch and one-launch kernels;
// fp8_linear_cluster.cu: the kernels that sum K splits in a thread block cluster): a launch's arguments, the output
// rounding, a pass's quantized activations in shared memory, and one 128-wide K block's loads and MMAs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/launch.h"
#include "kernels/cuda/mma_fp8.cuh"

namespace plumb::cuda::fp8_detail {

constexpr int kWarpsPerBlock = 4;
enum : int { control_none = 0, control_drop_last = 1, control_first_row = 2 };

struct LinearArgs {
  const uint8_t* w;
  const uint8_t* wscale;
  int64_t n, k;
  const uint8_t* xq;    // e4m3 [rows, k] (the two-launch kernel; the fused one reads LinearInput)
  const float* xs;      // [rows, k / 128] pow2 scales
  int64_t rows;
  int splits;
  float* partial;       // [splits, rows, n] when splits > 1
  unsigned* arrivals;   // [n / 16] split arrival counters, zero between calls
  void* y;              // [rows, y_stride], bf16 bits or float32
  bool y_f32, round_bf16;
  int64_t y_stride;
  float output_scale;
  int control;          // planted control (kernels/control.h), control_none in production
};

// The unquantized activations the fused kernel reads: [rows, stride], bf16 bits or float32. (A separate kernel
// argument: in LinearArgs they cost the two-launch kernel registers and spills.)
struct LinearInput {
  const void* x;
  bool f32;
  int64_t stride;
};

__device__ __forceinline__ void store_output(const LinearArgs& a, int64_t row, int64_t m, float acc) {
  const float v = linear_output(acc, a.round_bf16, a.output_scale);
  if (a.y_f32) {
    static_cast<float*>(a.y)[row * a.y_stride + m] = v;
  } else {
    static_cast<uint16_t*>(a.y)[row * a.y_stride + m] = float_to_bf16_bits(v);
  }
}

// A block's quantized activations for one pass: its split's K blocks of the pass's rows, as e4m3 codes with a
// 64-byte pad after each row (the 8 rows a warp reads at once then fall in different banks), and the scales.
struct PassActs {
  uint8_t* codes;  // [pass rows][row_bytes]
  float* scales;   // [pass rows][per_split]
  int row_bytes, per_split;
};

__host__ __device__ constexpr int pass_row_bytes(int64_t per_split) { return int(per_split) * 128 + 64; }
__host__ __device__ constexpr size_t pass_acts_bytes(int rows, int64_t per_split) {
  return size_t(rows) * (size_t(pass_row_bytes(per_split)) + size_t(per_split) * sizeof(float));
}

constexpr int kPassRows = 8;  // the one-launch kernels' rows a pass


// What one 128-wide K block needs, loaded one block ahead: this warp's weight fragments (two 64-wide chunks of
// rows g and g+8), its rows' activation fragments and the scales of its accumulator columns (rows 2t, 2t+1).
template <int NT>
struct BlockLoad {
  uint4 w[2][2];
  uint4 q[NT][2];
  float sa[NT][2];
};

__device__ __forceinline__ void load_weights(const LinearArgs& a, int64_t m0, int64_t m1, int64_t kb, int t,
                                             uint4 (&w)[2][2]) {
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const int64_t kofs = kb * 128 + c * 64 + t * 16;
    w[c][0] = load_stream_16(a.w + m0 * a.k + kofs);
    w[c][1] = load_stream_16(a.w + m1 * a.k + kofs);
  }
}

// The activations of the split's j-th K block from the block's shared memory (the fused kernel).
template <int NT>
__device__ __forceinline__ void load_acts_shared(const LinearArgs& a, const PassActs& s, int j, int g, int t,
                                                 BlockLoad<NT>& b) {
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const int r = a.control == control_first_row ? 0 : nt * 8 + g;
#pragma unroll
    for (int c = 0; c < 2; ++c)
      b.q[nt][c] = *reinterpret_cast<const uint4*>(s.codes + r * s.row_bytes + j * 128 + c * 64 + t * 16);
    b.sa[nt][0] = s.scales[(nt * 8 + 2 * t) * s.per_split + j];
    b.sa[nt][1] = s.scales[(nt * 8 + 2 * t + 1) * s.per_split + j];
  }
}

// One K block: per row group the four MMAs of the block's e4m3 products, then acc += block * (s_act * s_weight).
template <int NT>
__device__ __forceinline__ void mma_block(const BlockLoad<NT>& cur, float sw, float (&acc)[NT][4]) {
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    float blk[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      mma_e4m3_16x8x32(blk, cur.w[c][0].x, cur.w[c][1].x, cur.w[c][0].y, cur.w[c][1].y, cur.q[nt][c].x, cur.q[nt][c].y);
      mma_e4m3_16x8x32(blk, cur.w[c][0].z, cur.w[c][1].z, cur.w[c][0].w, cur.w[c][1].w, cur.q[nt][c].z, cur.q[nt][c].w);
    }
    acc[nt][0] = fmaf(blk[0], cur.sa[nt][0] * sw, acc[nt][0]);
    acc[nt][1] = fmaf(blk[1], cur.sa[nt][1] * sw, acc[nt][1]);
    acc[nt][2] = fmaf(blk[2], cur.sa[nt][0] * sw, acc[nt][2]);
    acc[nt][3] = fmaf(blk[3], cur.sa[nt][1] * sw, acc[nt][3]);
  }
}

// PLUMB_FP8_PASS16=0 gives the one-launch kernels (the cluster kernels and the fused pair) two 8-row passes at 9-16
// rows instead of one pass of two 8-row tiles (an A/B switch; the same bits). One pass: the fused pair 32.6 -> 31.0 us
// at 16 rows, the 256-block cluster kernel 12.5 -> 12.1 (H200, session 24).
bool pass16_enabled();

// The cluster kernels (fp8_linear_cluster.cu) for a one-launch linear, or the shared expert's pair (a's blocks
// first, both with a's splits and K blocks a split): each returns false, launching nothing, where they do not apply.
// pass16: 9-16 rows may go in one pass of two tiles (pass16_enabled() still decides).
bool launch_cluster_linear(const LinearArgs& a, const LinearInput& in, int64_t per_split, bool pass16, Stream stream);
bool launch_cluster_pair(const LinearArgs& a, const LinearArgs& b, const LinearInput& in, int64_t per_split,
                         Stream stream);

}  // namespace plumb::cuda::fp8_detail
