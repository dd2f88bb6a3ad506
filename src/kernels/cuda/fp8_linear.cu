#include <cooperative_groups.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/fp8_linear.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/mma_fp8.cuh"
#include "kernels/cuda/zero.h"

namespace plumb::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;

const kernels::ControlId kDropLastKBlock =
    kernels::register_control("fp8_linear_cuda", "drop_last_k_block", "the last 128-wide K block is skipped");
const kernels::ControlId kRowsReadPassFirstRow =
    kernels::register_control("fp8_linear_cuda", "rows_read_pass_first_row", "every row of a pass reads the pass's first row");
enum : int { control_none = 0, control_drop_last = 1, control_first_row = 2 };

__device__ __forceinline__ float input_value(const uint16_t* x, int64_t i) { return bf16_bits_to_float(x[i]); }
__device__ __forceinline__ float input_value(const float* x, int64_t i) { return x[i]; }

// One warp per 128-wide K block of one row.
template <typename T>
__global__ void act_quant_kernel(const T* __restrict__ x, int64_t x_stride, int64_t rows, int64_t k,
                                 uint8_t* __restrict__ codes, float* __restrict__ scales) {
  kernel_prologue();
  const int64_t kblocks = k / 128;
  const int64_t item = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (item >= rows * kblocks) return;
  const int lane = threadIdx.x % 32;
  const int64_t row = item / kblocks, kb = item % kblocks;
  const int64_t at = row * x_stride + kb * 128 + lane * 4;
  const float v[4] = {input_value(x, at), input_value(x, at + 1), input_value(x, at + 2), input_value(x, at + 3)};
  uint32_t packed;
  const float scale = quantize_block_128(v, packed);
  *reinterpret_cast<uint32_t*>(codes + row * k + kb * 128 + lane * 4) = packed;
  if (lane == 0) scales[row * kblocks + kb] = scale;
}

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
  float v = a.round_bf16 ? bf16_bits_to_float(float_to_bf16_bits(acc)) : acc;
  if (a.output_scale != 1.0f) {
    v *= a.output_scale;
    if (a.round_bf16) v = bf16_bits_to_float(float_to_bf16_bits(v));
  }
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

// Warps quantize the pass's rows over the split's K blocks, one (row, K block) at a time (warp w of `warps` takes
// items w, w + warps, ...), exactly as act_quant_kernel would; rows past the end get zero codes and scales.
__device__ __forceinline__ void quantize_pass(const LinearArgs& a, const LinearInput& in, int64_t base,
                                              int pass_rows, int64_t kb0, const PassActs& s, int warp, int warps) {
  const int lane = threadIdx.x % 32, items = pass_rows * s.per_split;
  for (int item = warp; item < items; item += warps) {
    const int r = item / s.per_split, j = item % s.per_split;
    const int64_t row = base + r;
    uint32_t packed = 0;
    float scale = 0.0f;
    if (row < a.rows) {
      const int64_t at = row * in.stride + (kb0 + j) * 128 + lane * 4;
      float v[4];
      load_activations_4(in.x, in.f32, at, v);
      scale = quantize_block_128(v, packed);
    }
    *reinterpret_cast<uint32_t*>(s.codes + r * s.row_bytes + j * 128 + lane * 4) = packed;
    if (lane == 0) s.scales[r * s.per_split + j] = scale;
  }
}

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

// Weights and activations of K block kb, the activations from the quantized rows in global memory.
template <int NT>
__device__ __forceinline__ void load_block(const LinearArgs& a, int64_t m0, int64_t m1, int64_t kb, int64_t base,
                                           int g, int t, BlockLoad<NT>& b) {
  const int64_t kblocks = a.k / 128;
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const int64_t kofs = kb * 128 + c * 64 + t * 16;
    b.w[c][0] = load_stream_16(a.w + m0 * a.k + kofs);
    b.w[c][1] = load_stream_16(a.w + m1 * a.k + kofs);
  }
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const int64_t row = a.control == control_first_row ? base : base + nt * 8 + g;
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const int64_t kofs = kb * 128 + c * 64 + t * 16;
      b.q[nt][c] = row < a.rows ? *reinterpret_cast<const uint4*>(a.xq + row * a.k + kofs) : make_uint4(0, 0, 0, 0);
    }
    const int64_t r0 = base + nt * 8 + 2 * t, r1 = r0 + 1;
    b.sa[nt][0] = r0 < a.rows ? a.xs[r0 * kblocks + kb] : 0.0f;
    b.sa[nt][1] = r1 < a.rows ? a.xs[r1 * kblocks + kb] : 0.0f;
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

// A pass's sums: the output itself with one split, else this split's partials.
template <int NT>
__device__ __forceinline__ void finish_pass(const LinearArgs& a, int64_t base, int split, int64_t m0, int64_t m1,
                                            int t, const float (&acc)[NT][4]) {
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t row = base + nt * 8 + 2 * t + (j & 1);
      const int64_t m = j < 2 ? m0 : m1;
      if (row >= a.rows) continue;
      if (a.splits == 1) {
        store_output(a, row, m, acc[nt][j]);
      } else {
        a.partial[(int64_t(split) * a.rows + row) * a.n + m] = acc[nt][j];
      }
    }
  }
}

// With several splits, the last warp of a feature tile to finish sums the splits' partials in ascending order
// (the same order every launch).
__device__ __forceinline__ void sum_splits(const LinearArgs& a, int64_t mtile, int lane) {
  __threadfence();
  __syncwarp();
  unsigned arrived = 0;
  if (lane == 0) arrived = atomicAdd(&a.arrivals[mtile], 1u);
  arrived = __shfl_sync(0xffffffffu, arrived, 0);
  if (arrived != unsigned(a.splits - 1)) return;
  __threadfence();
  for (int64_t i = lane; i < a.rows * 16; i += 32) {
    const int64_t row = i / 16, m = mtile * 16 + i % 16;
    float sum = __ldcg(&a.partial[row * a.n + m]);
    for (int s = 1; s < a.splits; ++s) sum += __ldcg(&a.partial[(int64_t(s) * a.rows + row) * a.n + m]);
    store_output(a, row, m, sum);
  }
  if (lane == 0) a.arrivals[mtile] = 0u;
}

// The two-launch kernel (act_quant_kernel first): a warp owns 16 output features and one K split; each pass
// covers NT * 8 rows. With several splits, the last warp of a feature tile to finish sums the splits' partials in
// ascending order (the same order every launch). The 8-row variant is held to 128 registers so four blocks fit per
// multiprocessor: at 148 registers three did, and wq_b's 2048 warps ran in two waves.
template <int NT>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, NT == 1 ? 4 : 1) fp8_linear_kernel(LinearArgs a) {
  const int warp_id = int(blockIdx.x) * kWarpsPerBlock + int(threadIdx.x) / 32;  // 32-bit: no 64-bit division
  const int mtiles = int(a.n / 16);
  const int64_t mtile = warp_id / a.splits;
  const int split = warp_id % a.splits;
  const int64_t kblocks = a.k / 128;
  const int64_t per_split = kblocks / a.splits;
  const int64_t kb0 = split * per_split;
  wait_for_earlier_kernels();
  allow_next_kernel();
  if (warp_id >= mtiles * a.splits) return;
  const int64_t kb1 = kb0 + per_split - (a.control == control_drop_last && split == a.splits - 1 ? 1 : 0);
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t m0 = mtile * 16 + g, m1 = m0 + 8;
  const int64_t wscale_cols = (a.k + 127) / 128;
  const uint8_t* wscale_row = a.wscale + ((mtile * 16) / 128) * wscale_cols;

  for (int64_t base = 0; base < a.rows; base += NT * 8) {
    float acc[NT][4];
    for (int nt = 0; nt < NT; ++nt)
      for (int j = 0; j < 4; ++j) acc[nt][j] = 0.0f;
    BlockLoad<NT> cur, nxt;
    load_block<NT>(a, m0, m1, kb0, base, g, t, cur);
    for (int64_t kb = kb0; kb < kb1; ++kb) {
      if (kb + 1 < kb1) load_block<NT>(a, m0, m1, kb + 1, base, g, t, nxt);
      mma_block<NT>(cur, e8m0_value(wscale_row[kb]), acc);
      cur = nxt;
    }
    finish_pass<NT>(a, base, split, m0, m1, t, acc);
  }
  if (a.splits > 1) sum_splits(a, mtile, lane);
}

constexpr int kPassRows = 8;  // the one-launch kernels' rows a pass

// One block of the one-launch kernel (block numbers its place in this linear's grid): a block's four warps share one
// K split and own 16 output features each, and for each pass of 8 rows the block first quantizes the rows over that
// split into shared memory (no act_quant launch). Every block pays for that quantization, so fp8_linear picks it
// only where that costs less than the launch saved.
__device__ __forceinline__ void fused_linear_block(const LinearArgs& a, const LinearInput& in, int block) {
  extern __shared__ __align__(16) uint8_t pass_smem[];
  constexpr int NT = 1;
  const int mtiles = int(a.n / 16);
  const int split = block % a.splits;
  const int64_t mtile = int64_t(block / a.splits) * kWarpsPerBlock + int(threadIdx.x) / 32;
  const bool owns_tile = mtile < mtiles;  // a warp past the last tile still helps quantize
  const int64_t kblocks = a.k / 128;
  const int64_t per_split = kblocks / a.splits;
  const int64_t kb0 = split * per_split;
  const PassActs s{pass_smem, reinterpret_cast<float*>(pass_smem + kPassRows * pass_row_bytes(per_split)),
                   pass_row_bytes(per_split), int(per_split)};
  wait_for_earlier_kernels();
  allow_next_kernel();
  const int64_t kb1 = kb0 + per_split - (a.control == control_drop_last && split == a.splits - 1 ? 1 : 0);
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t m0 = (owns_tile ? mtile : 0) * 16 + g, m1 = m0 + 8;
  const int64_t wscale_cols = (a.k + 127) / 128;
  const uint8_t* wscale_row = a.wscale + (((owns_tile ? mtile : 0) * 16) / 128) * wscale_cols;

  for (int64_t base = 0; base < a.rows; base += kPassRows) {
    BlockLoad<NT> cur, nxt;
    if (owns_tile) load_weights(a, m0, m1, kb0, t, cur.w);  // in flight while the block quantizes
    if (base > 0) __syncthreads();                          // the last pass has read its activations
    quantize_pass(a, in, base, kPassRows, kb0, s, int(threadIdx.x) / 32, kWarpsPerBlock);
    __syncthreads();
    if (!owns_tile) continue;
    float acc[NT][4] = {};
    load_acts_shared<NT>(a, s, 0, g, t, cur);
    for (int64_t kb = kb0; kb < kb1; ++kb) {
      if (kb + 1 < kb1) {
        load_weights(a, m0, m1, kb + 1, t, nxt.w);
        load_acts_shared<NT>(a, s, int(kb + 1 - kb0), g, t, nxt);
      }
      mma_block<NT>(cur, e8m0_value(wscale_row[kb]), acc);
      cur = nxt;
    }
    finish_pass<NT>(a, base, split, m0, m1, t, acc);
  }
  if (owns_tile && a.splits > 1) sum_splits(a, mtile, lane);
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32, 4) fp8_linear_fused_kernel(LinearArgs a, LinearInput in) {
  fused_linear_block(a, in, int(blockIdx.x));
}

// Two one-launch linears of the same input in one grid (the shared expert's w1 and w3): the first a_blocks blocks
// are a's, the rest b's. Each keeps its own grid, splits, partials and arrival counters, so each output's bits are
// those of its own launch; one launch's fixed cost (about 2.5 us alone, H200) is saved.
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 4) fp8_linear_fused_pair_kernel(LinearArgs a, LinearArgs b,
                                                                                       int a_blocks, LinearInput in) {
  if (int(blockIdx.x) < a_blocks) {
    fused_linear_block(a, in, int(blockIdx.x));
  } else {
    fused_linear_block(b, in, int(blockIdx.x) - a_blocks);
  }
}

// The one-launch linear with its K splits summed in a thread block cluster of C blocks (splits = 4 C): a block's
// four warps take four consecutive splits of one 16-feature tile, and a cluster all of the tile's splits. Each warp
// quantizes its split's rows into its own shared region, leaves its sums in its block's shared memory, and the
// cluster's first block adds them up in ascending split order from the blocks' shared memory, as sum_splits does
// from global memory, so the bits are the same. There are no global partials, no fence and no arrival atomic: in
// the kernel above the stalls on those and on the barrier before them were 45% of its samples (ncu source page,
// wq_a at one row, H200, session 11 call 1).
constexpr int kPassSums = kPassRows * 16;

__host__ __device__ constexpr size_t cluster_region_bytes(int64_t per_split) {
  return (pass_acts_bytes(kPassRows, per_split) + 15) / 16 * 16;
}
__host__ __device__ constexpr size_t cluster_smem_bytes(int64_t per_split) {
  return kWarpsPerBlock * (cluster_region_bytes(per_split) + kPassSums * sizeof(float));
}

// One warp quantizes its split's P K blocks of the pass's rows as quantize_pass does, with a K block's loads of the
// pass's rows issued together (a warp has 8 rows to quantize here, where quantize_pass gives each warp 2).
template <int P>
__device__ __forceinline__ void quantize_split(const LinearArgs& a, const LinearInput& in, int64_t base, int64_t kb0,
                                               const PassActs& s) {
  const int lane = int(threadIdx.x) % 32;
#pragma unroll
  for (int j = 0; j < P; ++j) {
    float v[kPassRows][4];
#pragma unroll
    for (int r = 0; r < kPassRows; ++r)
      if (base + r < a.rows) load_activations_4(in.x, in.f32, (base + r) * in.stride + (kb0 + j) * 128 + lane * 4, v[r]);
#pragma unroll
    for (int r = 0; r < kPassRows; ++r) {
      uint32_t packed = 0;
      const float scale = base + r < a.rows ? quantize_block_128(v[r], packed) : 0.0f;
      *reinterpret_cast<uint32_t*>(s.codes + r * s.row_bytes + j * 128 + lane * 4) = packed;
      if (lane == 0) s.scales[r * P + j] = scale;
    }
  }
}

// C blocks a cluster, P K blocks a split. A warp's weights (P K blocks of its 16 features) are read before the PDL
// wait: constant weights may be (dependent_launch.cuh).
template <int C, int P>
__device__ __forceinline__ void cluster_linear_block(const LinearArgs& a, const LinearInput& in, int block) {
  extern __shared__ __align__(16) uint8_t cluster_smem[];
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane >> 2, t = lane & 3;
  const int rank = int(cluster.block_rank());
  const int split = rank * kWarpsPerBlock + warp;
  const int64_t mtile = block / C, kb0 = int64_t(split) * P;
  const int64_t m0 = mtile * 16 + g, m1 = m0 + 8;
  const int blocks = P - (a.control == control_drop_last && split == a.splits - 1 ? 1 : 0);
  uint4 w[P][2][2];
  float sw[P];
#pragma unroll
  for (int j = 0; j < P; ++j) {
    load_weights(a, m0, m1, kb0 + j, t, w[j]);
    sw[j] = e8m0_value(a.wscale[((mtile * 16) / 128) * ((a.k + 127) / 128) + kb0 + j]);
  }
  uint8_t* mine = cluster_smem + warp * cluster_region_bytes(P);
  const PassActs s{mine, reinterpret_cast<float*>(mine + kPassRows * pass_row_bytes(P)), pass_row_bytes(P), P};
  float* sums = reinterpret_cast<float*>(cluster_smem + kWarpsPerBlock * cluster_region_bytes(P));
  wait_for_earlier_kernels();
  allow_next_kernel();

  for (int64_t base = 0; base < a.rows; base += kPassRows) {
    quantize_split<P>(a, in, base, kb0, s);
    __syncwarp();
    float acc[1][4] = {};
#pragma unroll
    for (int j = 0; j < P; ++j) {
      if (j >= blocks) break;
      BlockLoad<1> cur;
      for (int c = 0; c < 2; ++c) cur.w[c][0] = w[j][c][0], cur.w[c][1] = w[j][c][1];
      load_acts_shared<1>(a, s, j, g, t, cur);
      mma_block<1>(cur, sw[j], acc);
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)  // acc[j]: row 2t + (j & 1), feature g, or g + 8 for j >= 2
      sums[warp * kPassSums + (2 * t + (j & 1)) * 16 + g + (j < 2 ? 0 : 8)] = acc[0][j];
    cluster.sync();
    const int64_t row = base + int(threadIdx.x) / 16;
    if (rank == 0 && int(threadIdx.x) < kPassSums && row < a.rows) {
      float sum = 0.0f;
#pragma unroll
      for (int b = 0; b < C; ++b) {  // a block's four sums loaded together, added in split order
        const float* theirs = cluster.map_shared_rank(sums, b) + threadIdx.x;
        const float v[4] = {theirs[0], theirs[kPassSums], theirs[2 * kPassSums], theirs[3 * kPassSums]};
        sum = b == 0 ? v[0] : sum + v[0];
        sum = sum + v[1];
        sum = sum + v[2];
        sum = sum + v[3];
      }
      store_output(a, row, mtile * 16 + int(threadIdx.x) % 16, sum);
    }
    cluster.sync();  // the first block has read every block's sums (and each warp its activations)
  }
}

// Five blocks a multiprocessor with one K block a split (at most 102 registers): at four, wq_a's 64 clusters of 8
// did not fit one wave (62 clusters did, ncu, session 11 call 2).
constexpr int cluster_blocks_per_sm(int p) { return p == 1 ? 5 : 4; }

template <int C, int P>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(kWarpsPerBlock * 32, cluster_blocks_per_sm(P))
    fp8_linear_cluster_kernel(LinearArgs a, LinearInput in) {
  cluster_linear_block<C, P>(a, in, int(blockIdx.x));
}

// The shared expert's pair on cluster_linear_block (both linears with 4 C splits, so no cluster straddles them).
template <int C, int P>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(kWarpsPerBlock * 32, cluster_blocks_per_sm(P))
    fp8_linear_cluster_pair_kernel(LinearArgs a, LinearArgs b, int a_blocks, LinearInput in) {
  if (int(blockIdx.x) < a_blocks) {
    cluster_linear_block<C, P>(a, in, int(blockIdx.x));
  } else {
    cluster_linear_block<C, P>(b, in, int(blockIdx.x) - a_blocks);
  }
}

size_t align256(size_t b) { return (b + 255) / 256 * 256; }
constexpr size_t kMaxPassBytes = 200 << 10;

template <typename T>
void quantize_rows(const T* x, int64_t x_stride, int64_t rows, int64_t k, uint8_t* codes, float* scales,
                   Stream stream) {
  const int64_t items = rows * (k / 128);
  if (items == 0) return;
  const int64_t blocks = (items + kWarpsPerBlock - 1) / kWarpsPerBlock;
  launch(stream, "act_quant", act_quant_kernel<T>, dim3(unsigned(blocks)), dim3(kWarpsPerBlock * 32), 0, x, x_stride,
         rows, k, codes, scales);
}

// Launches of up to 8 rows (one 8-row pass) quantize in the linear where a split is at most 2 K blocks. On the H200
// (plumb synth, session 8 call 4; times include act_quant's launch where it runs), in the linear against before:
// wq_a 8.8 -> 7.2 us at 1 row and 15.1 -> 13.4 at 8 rows (1 K block a split), shared w1 8.9 -> 7.9 and 13.4 -> 13.2
// (2); but wq_b 12.7 -> 14.0 and wo_b 14.6 -> 15.8 at 1 row (8): there the block's quantization holds back a
// longer weight stream.
bool quantize_in_linear(Fp8Quantize q, int64_t per_split) {
  constexpr int64_t kMaxSplitBlocks = 2;
  return q == Fp8Quantize::in_linear || (q == Fp8Quantize::automatic && per_split <= kMaxSplitBlocks);
}

}  // namespace

int fp8_linear_splits(int64_t n, int64_t k) {
  // Enough warps to keep every multiprocessor streaming (about 2048), never splitting a 128-block.
  const int64_t kblocks = k / 128, mtiles = n / 16;
  int s = 1;
  while (mtiles * s < 2048 && s * 2 <= kblocks && kblocks % (s * 2) == 0) s *= 2;
  return s;
}

size_t fp8_linear_workspace_bytes(int64_t n, int64_t k, int64_t rows) {
  const int s = fp8_linear_splits(n, k);
  return align256(size_t(n / 16) * sizeof(unsigned)) + align256(size_t(rows * k)) +
         align256(size_t(rows * (k / 128)) * sizeof(float)) +
         (s > 1 ? align256(size_t(s) * size_t(rows * n) * sizeof(float)) : 0);
}

void fp8_linear_workspace_init(void* workspace, int64_t n, Stream stream) {
  zero_async(stream, workspace, size_t(n / 16) * sizeof(unsigned));
}

void act_quant_e4m3(const uint16_t* x, int64_t rows, int64_t k, uint8_t* codes, float* scales, Stream stream) {
  quantize_rows(x, k, rows, k, codes, scales, stream);
}

namespace {

// A call's kernel arguments: the workspace carved into arrival counters, quantized rows, scales and partials.
struct Call {
  LinearArgs a;
  LinearInput in;
  int64_t per_split;
  uint8_t* xq;  // a.xq and a.xs, writable (the quantization kernel's output)
  float* xs;
};

Call prepare_call(const Fp8WeightView& w, const LinearIo& io, int64_t rows, void* workspace) {
  PLUMB_CHECK(w.n % 16 == 0 && w.k % 128 == 0 && w.k >= 128);
  auto* base = static_cast<uint8_t*>(workspace);
  auto* arrivals = reinterpret_cast<unsigned*>(base);
  base += align256(size_t(w.n / 16) * sizeof(unsigned));
  uint8_t* xq = base;
  base += align256(size_t(rows * w.k));
  auto* xs = reinterpret_cast<float*>(base);
  base += align256(size_t(rows * (w.k / 128)) * sizeof(float));
  auto* partial = reinterpret_cast<float*>(base);
  const int control = kernels::planted(kDropLastKBlock)         ? control_drop_last
                      : kernels::planted(kRowsReadPassFirstRow) ? control_first_row
                                                                : control_none;
  const int64_t x_stride = io.x_stride ? io.x_stride : w.k;
  PLUMB_CHECK(x_stride >= w.k);
  const LinearArgs a{w.codes, w.scales, w.n, w.k, xq, xs, rows, fp8_linear_splits(w.n, w.k), partial,
                     io.arrivals ? io.arrivals : arrivals,
                     io.y, io.y_f32, io.round_bf16, io.y_stride ? io.y_stride : w.n, io.output_scale, control};
  return {a, LinearInput{io.x, io.x_f32, x_stride}, w.k / 128 / a.splits, xq, xs};
}

// PLUMB_FP8_PAIR=0 launches fp8_linear_pair's two linears one after the other (an A/B switch; same bits).
bool pair_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("PLUMB_FP8_PAIR");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

// PLUMB_FP8_CLUSTER=0 keeps the one-launch linears on the kernels that sum splits through global memory (an A/B
// switch; the bits are the same either way).
bool cluster_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("PLUMB_FP8_CLUSTER");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

// The cluster kernels' blocks a cluster for a call (4 splits a block, at most 8 blocks: the portable cluster size),
// or 0 where they do not apply.
int cluster_blocks(const Call& c) {
  constexpr size_t kDefaultSharedBytes = 48 << 10;
  const int splits = c.a.splits;
  const bool fits = splits % kWarpsPerBlock == 0 && splits <= 8 * kWarpsPerBlock && c.per_split <= 2 &&
                    cluster_smem_bytes(c.per_split) <= kDefaultSharedBytes;
  return cluster_enabled() && fits ? splits / kWarpsPerBlock : 0;
}

// How many clusters of c blocks of the kernel are resident at once (asked once a kernel): a grid of more runs in
// waves, and a second wave costs more than the cluster saves (ncu, session 11 call 2: wq_a's 64 clusters of 8 where
// 62 fit, the shared expert's pair's 256 clusters of 4 where 124 fit).
int resident_clusters(const void* kernel, int c, size_t shared_bytes) {
  static std::mutex mutex;
  static std::map<const void*, int> known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(kernel); it != known.end()) return it->second;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(c));
  config.blockDim = dim3(kWarpsPerBlock * 32);
  config.dynamicSmemBytes = shared_bytes;
  int clusters = 0;
  PLUMB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  return known[kernel] = clusters;
}

// Calls f(std::integral_constant<int, C>, std::integral_constant<int, P>) for a cluster size C of 1, 2, 4 or 8 and
// P of 1 or 2 K blocks a split.
template <typename F>
void with_cluster_shape(int c, int64_t per_split, F&& f) {
  const auto with_c = [&](auto p) {
    switch (c) {
      case 1: f(std::integral_constant<int, 1>{}, p); break;
      case 2: f(std::integral_constant<int, 2>{}, p); break;
      case 4: f(std::integral_constant<int, 4>{}, p); break;
      case 8: f(std::integral_constant<int, 8>{}, p); break;
      default: fail("fp8_linear: no cluster kernel for {} blocks a cluster", c);
    }
  };
  if (per_split == 1) {
    with_c(std::integral_constant<int, 1>{});
  } else {
    PLUMB_CHECK(per_split == 2);
    with_c(std::integral_constant<int, 2>{});
  }
}

}  // namespace

void fp8_linear(const Fp8WeightView& w, const LinearIo& io, int64_t rows, void* workspace, int rows_per_pass,
                Stream stream, Fp8Quantize quantize) {
  if (rows == 0) return;
  const Call call = prepare_call(w, io, rows, workspace);
  const LinearArgs& a = call.a;
  const LinearInput& in = call.in;
  const int64_t per_split = call.per_split;
  const int64_t x_stride = in.stride;
  uint8_t* xq = call.xq;
  float* xs = call.xs;
  if (rows_per_pass == 0) rows_per_pass = rows <= 8 ? 8 : rows <= 16 ? 16 : 32;
  const bool one_launch = rows_per_pass == 8 && quantize_in_linear(quantize, per_split);
  if (const int c = one_launch ? cluster_blocks(call) : 0) {
    bool launched = false;
    with_cluster_shape(c, per_split, [&](auto size, auto blocks) {
      const auto kernel = fp8_linear_cluster_kernel<size(), blocks()>;
      const size_t smem = cluster_smem_bytes(per_split);
      if (w.n / 16 > resident_clusters(reinterpret_cast<const void*>(kernel), c, smem)) return;
      launch(stream, "fp8_linear_cluster", kernel, dim3(unsigned(w.n / 16 * c)), dim3(kWarpsPerBlock * 32), smem, a,
             in);
      launched = true;
    });
    if (launched) return;
  }
  if (one_launch) {
    const size_t smem = pass_acts_bytes(8, per_split);
    if (smem > kMaxPassBytes)
      fail("fp8_linear: a {}x{} weight needs {} bytes of shared memory a pass (at most {})", w.n, w.k, smem,
           kMaxPassBytes);
    allow_shared_bytes<fp8_linear_fused_kernel, kMaxPassBytes>();
    const unsigned blocks = unsigned((w.n / 16 + kWarpsPerBlock - 1) / kWarpsPerBlock * a.splits);
    launch(stream, "fp8_linear_fused", fp8_linear_fused_kernel, dim3(blocks), dim3(kWarpsPerBlock * 32), smem, a,
           in);
    return;
  }
  PLUMB_CHECK(quantize != Fp8Quantize::in_linear);  // the one-launch kernel has 8-row passes only
  if (io.x_f32) {
    quantize_rows(static_cast<const float*>(io.x), x_stride, rows, w.k, xq, xs, stream);
  } else {
    quantize_rows(static_cast<const uint16_t*>(io.x), x_stride, rows, w.k, xq, xs, stream);
  }
  const int64_t warps = (w.n / 16) * a.splits;
  const unsigned blocks = unsigned((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
  switch (rows_per_pass) {
    case 8: launch(stream, "fp8_linear", fp8_linear_kernel<1>, dim3(blocks), dim3(kWarpsPerBlock * 32), 0, a); break;
    case 16: launch(stream, "fp8_linear", fp8_linear_kernel<2>, dim3(blocks), dim3(kWarpsPerBlock * 32), 0, a); break;
    case 32: launch(stream, "fp8_linear", fp8_linear_kernel<4>, dim3(blocks), dim3(kWarpsPerBlock * 32), 0, a); break;
    default: fail("fp8_linear: rows_per_pass must be 8, 16 or 32, got {}", rows_per_pass);
  }
}

void fp8_linear_pair(const Fp8WeightView& w1, const LinearIo& io1, void* workspace1, const Fp8WeightView& w2,
                     const LinearIo& io2, void* workspace2, int64_t rows, Stream stream) {
  if (rows == 0) return;
  const Call c1 = prepare_call(w1, io1, rows, workspace1), c2 = prepare_call(w2, io2, rows, workspace2);
  const bool one_launch = pair_enabled() && rows <= 8 && io1.x == io2.x && io1.x_f32 == io2.x_f32 &&
                          c1.in.stride == c2.in.stride && w1.k == w2.k && c1.per_split == c2.per_split &&
                          quantize_in_linear(Fp8Quantize::automatic, c1.per_split) &&
                          pass_acts_bytes(8, c1.per_split) <= kMaxPassBytes;
  if (!one_launch) {
    fp8_linear(w1, io1, rows, workspace1, 0, stream);
    fp8_linear(w2, io2, rows, workspace2, 0, stream);
    return;
  }
  const int c = cluster_blocks(c1);
  if (c && c2.a.splits == c1.a.splits) {
    const int a_blocks = int(c1.a.n / 16 * c);
    bool launched = false;
    with_cluster_shape(c, c1.per_split, [&](auto size, auto blocks) {
      const auto kernel = fp8_linear_cluster_pair_kernel<size(), blocks()>;
      const size_t smem = cluster_smem_bytes(c1.per_split);
      if ((c1.a.n + c2.a.n) / 16 > resident_clusters(reinterpret_cast<const void*>(kernel), c, smem)) return;
      launch(stream, "fp8_linear_cluster_pair", kernel, dim3(unsigned(a_blocks + c2.a.n / 16 * c)),
             dim3(kWarpsPerBlock * 32), smem, c1.a, c2.a, a_blocks, c1.in);
      launched = true;
    });
    if (launched) return;
  }
  allow_shared_bytes<fp8_linear_fused_pair_kernel, kMaxPassBytes>();
  const auto blocks = [](const Call& c) {
    return int((c.a.n / 16 + kWarpsPerBlock - 1) / kWarpsPerBlock * c.a.splits);
  };
  launch(stream, "fp8_linear_fused_pair", fp8_linear_fused_pair_kernel, dim3(unsigned(blocks(c1) + blocks(c2))),
         dim3(kWarpsPerBlock * 32), pass_acts_bytes(8, c1.per_split), c1.a, c2.a, blocks(c1), c1.in);
}

void fp8_linear(const Fp8WeightView& w, const uint16_t* x, int64_t rows, uint16_t* y, void* workspace,
                int rows_per_pass, Stream stream, Fp8Quantize quantize) {
  LinearIo io;
  io.x = x;
  io.y = y;
  fp8_linear(w, io, rows, workspace, rows_per_pass, stream, quantize);
}

}  // namespace plumb::cuda
