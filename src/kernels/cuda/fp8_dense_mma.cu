// The dense linear with FP8 weights and unquantized activations (the grouped wo_a) on the matrix unit. The release
// runs wo_a as a bf16 GEMM (dequantized weights, bf16 activations, fp32 accumulation inside the matrix unit;
// dsv4-forward.md section 7). Here one mma.sync m16n8k8 tf32 tile takes 16 output features (M) by 8 activation
// rows (N): e4m3 codes and bf16 activations are exact in tf32, so every product is exact, and a row's column of the
// tile never reads another row's. Every row count, 1 to any, runs the same instructions over the same K order:
//   - a warp owns 16 features and a fixed quarter of K's 128-wide blocks (the weights' scale blocks);
//   - per K block, 16 MMAs from a zero accumulator, then the block's sum times its E8M0 scale is fma'd into the
//     warp's running sum (the FP8 linear's promotion);
//   - the block's four warps' sums are added in warp order, then rounded and scaled as dense_linear does.
// Rows go 8 or 16 to a block (one or two column tiles; padding rows computed from zeros, never written), staged per K
// block through shared memory; a feature tile's row tiles are neighbours in the grid, so its weights come from
// memory once and from the L2 after.
#include "base/env_switch.h"
#include "kernels/control.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/fp8_dense_mma.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/mma_fp8.cuh"
#include "kernels/cuda/ops_common.cuh"

namespace plumb::cuda::ops {
namespace {

const kernels::ControlId kGroupsReadFirstGroup = kernels::register_control(
    "dense_linear_cuda", "groups_read_first_group", "every group's features read the first group's activations");

constexpr int kFeatures = 16;  // a warp's output features, the MMA's M
constexpr int kSplits = 4;     // warps of a block, each a fixed share of the K blocks
constexpr int kThreads = 32 * kSplits;
constexpr int kDepth = 2;      // K blocks of weights (in registers) and activations (staged) in flight

// D = A B + D for one 16x8 (A, row-major) by 8x8 (B, column-major) tf32 tile, fp32 accumulators.
// Fragments (lane = 4 g + t): a0 = A[g][t], a1 = A[g+8][t], a2 = A[g][t+4], a3 = A[g+8][t+4]; b0 = B[t][g],
// b1 = B[t+4][g]; d0,d1 = D[g][2t, 2t+1], d2,d3 = D[g+8][2t, 2t+1].
__device__ __forceinline__ void mma_tf32_16x8x8(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                                uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// A lane's 32 weight codes of one K block for feature rows g and g + 8: bytes 32t .. 32t + 31 of each.
struct BlockCodes {
  uint4 g_lo, g_hi, g8_lo, g8_hi;
};

__device__ __forceinline__ BlockCodes load_block_codes(const uint8_t* row_g, const uint8_t* row_g8, int64_t at) {
  return {load_stream_16(row_g + at), load_stream_16(row_g + at + 16), load_stream_16(row_g8 + at),
          load_stream_16(row_g8 + at + 16)};
}

// Codes 2j and 2j + 1 of a lane's 32 (one 16-bit half of one word), as floats.
__device__ __forceinline__ float2 code_pair(const uint4& lo, const uint4& hi, int j) {
  const uint4& q = j < 8 ? lo : hi;
  const int word = (j % 8) / 2;
  const uint32_t w = word == 0 ? q.x : word == 1 ? q.y : word == 2 ? q.z : q.w;
  return e4m3x2_values(uint16_t(w >> (16 * (j % 2))));
}

// A warp's activation rows for one K block in shared memory: row r's value p at r * kStageStride + p + 4 (p / 32),
// so that the 8 lanes of an LDS.128 phase (rows g, g + 1; quarters t) fall in distinct banks.
constexpr int kStageStride = 144;

__device__ __forceinline__ void copy_async_16(float* to, const float* from) {
  const unsigned at = unsigned(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(at), "l"(from) : "memory");
}
__device__ __forceinline__ void copy_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most kDepth - 1 committed groups are still in flight.
__device__ __forceinline__ void copy_async_wait_ring() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kDepth - 1) : "memory");
}

// kTiles: column tiles of 8 rows a block serves (1 when a launch has at most 8 rows). kAsyncX: activation rows start
// 16-byte aligned, so they are staged by cp.async (kDepth stages in flight); otherwise by plain loads. kPair:
// feature tiles a block serves; with 2, the two warps of a K quarter (one a tile) share its stages,
// each staging half the rows, and meet at a named barrier before and after each stage is read.
// MMA j of a K block pairs logical column t with K offset 32t + 2j and column t + 4 with 32t + 2j + 1, so a lane's
// weights and activations are the same 32 consecutive K values.
template <int kTiles, bool kAsyncX, int kPair = 1>
__global__ void __launch_bounds__(kThreads * kPair, kPair == 1 ? 3 : 2)
    fp8_dense_mma_kernel(WeightRef w, int64_t groups, View x, View y, bool round, float scale, bool first_group) {
  constexpr int kRows = 8 * kTiles, kStageFloats = kRows * kStageStride;
  extern __shared__ __align__(16) float staged[];  // [K quarter][kDepth stages][kRows][kStageStride]
  const int warp = kPair == 1 ? int(threadIdx.x / 32) : int(threadIdx.x / 32) % kSplits;  // the K quarter
  const int tile = kPair == 1 ? 0 : int(threadIdx.x / 32) / kSplits;
  const int lane = int(threadIdx.x % 32), g = lane / 4, t = lane % 4;
  const int64_t f_tile = int64_t(blockIdx.y) * kPair + tile, k = w.cols, k_blocks = k / 128;
  const bool owns = kPair == 1 || f_tile * kFeatures < w.rows;  // the last block's second tile may lie past the end
  const int64_t f0 = (owns ? f_tile : int64_t(blockIdx.y) * kPair) * kFeatures;
  const int64_t per_split = (k_blocks + kSplits - 1) / kSplits;
  const int64_t b0 = warp * per_split;
  const int64_t b1 = b0 + per_split < k_blocks ? b0 + per_split : k_blocks;
  const auto* codes = static_cast<const uint8_t*>(w.data);
  const uint8_t* row_g = codes + (f0 + g) * k + 32 * t;
  const uint8_t* row_g8 = row_g + 8 * k;
  const uint8_t* scales = w.scales + (f0 / 128) * w.scale_cols;
  // The weights are constant: the first blocks' loads go out before the wait for earlier kernels.
  BlockCodes ring[kDepth];
#pragma unroll
  for (int s = 0; s < kDepth; ++s)
    if (owns && b0 + s < b1) ring[s] = load_block_codes(row_g, row_g8, (b0 + s) * 128);
  kernel_prologue();
  const int64_t row0 = int64_t(blockIdx.x) * kRows, xoff = (first_group ? 0 : f0 / (w.rows / groups)) * k;
  const int rows = x.rows - row0 < kRows ? int(x.rows - row0) : kRows;
  float* stage[kDepth];
#pragma unroll
  for (int s = 0; s < kDepth; ++s) stage[s] = staged + (warp * kDepth + s) * kStageFloats;
  const int slot = 4 * lane + 4 * (lane / 8);  // where this lane's 4 values of a staged row go
  const int first_row = kPair == 1 ? 0 : tile;  // a pair's warps stage alternate rows
  // Padding rows, this warp's (from the first r >= rows with r % kPair == first_row): zeros, never overwritten.
  for (int r = rows + (rows % kPair != first_row ? (first_row - rows % kPair + kPair) % kPair : 0); r < kRows;
       r += kPair)
    for (float* st : stage) *reinterpret_cast<float4*>(st + r * kStageStride + slot) = make_float4(0, 0, 0, 0);
  auto pair_sync = [&] {  // the K quarter's two warps (named barrier 1 + quarter; 0 is __syncthreads')
    if constexpr (kPair == 2) asm volatile("bar.sync %0, 64;\n" ::"r"(1 + warp) : "memory");
  };
  auto issue = [&](float* st, int64_t kb) {  // one K block of the tile's rows into a stage
    if (kb < b1)
      for (int r = first_row; r < rows; r += kPair) {
        const float* from = row_ptr<const float>(x, row0 + r) + xoff + kb * 128 + 4 * lane;
        if constexpr (kAsyncX) {
          copy_async_16(st + r * kStageStride + slot, from);
        } else {
          for (int i = 0; i < 4; ++i) st[r * kStageStride + slot + i] = from[i];
        }
      }
    copy_async_commit();  // an empty group past the end keeps the count of groups in flight the same
  };
#pragma unroll
  for (int s = 0; s < kDepth; ++s) issue(stage[s], b0 + s);
  float acc[kTiles][4] = {};
  for (int64_t kb0 = b0; kb0 < b1; kb0 += kDepth) {
#pragma unroll
    for (int s = 0; s < kDepth; ++s) {
      const int64_t kb = kb0 + s;
      if (kb >= b1) break;
      const BlockCodes c = ring[s];
      if (owns && kb + kDepth < b1) ring[s] = load_block_codes(row_g, row_g8, (kb + kDepth) * 128);
      copy_async_wait_ring();
      __syncwarp();  // every lane's part of the stage has landed
      pair_sync();   // and the partner warp's half
      float d[kTiles][4] = {};
#pragma unroll
      for (int m = 0; m < 8; ++m) {  // values 32t + 4m .. + 3 of the lane's rows: MMAs 2m and 2m + 1
        float4 xa[kTiles];
#pragma unroll
        for (int i = 0; i < kTiles; ++i)
          xa[i] = *reinterpret_cast<const float4*>(stage[s] + (8 * i + g) * kStageStride + 36 * t + 4 * m);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int j = 2 * m + h;
          const float2 wg = code_pair(c.g_lo, c.g_hi, j), wg8 = code_pair(c.g8_lo, c.g8_hi, j);
#pragma unroll
          for (int i = 0; i < kTiles; ++i)
            mma_tf32_16x8x8(d[i], __float_as_uint(wg.x), __float_as_uint(wg8.x), __float_as_uint(wg.y),
                            __float_as_uint(wg8.y), __float_as_uint(h == 0 ? xa[i].x : xa[i].z),
                            __float_as_uint(h == 0 ? xa[i].y : xa[i].w));
        }
      }
      const float sc = e8m0_value(scales[kb]);
#pragma unroll
      for (int i = 0; i < kTiles; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][e] = __fmaf_rn(d[i][e], sc, acc[i][e]);
      __syncwarp();  // the stage is read before the next K block is staged over it
      pair_sync();
      issue(stage[s], kb + kDepth);
    }
  }
  // The warps' sums meet in the stages' space (three blocks of two tiles fill a multiprocessor's shared memory).
  auto partial = reinterpret_cast<float(*)[kSplits][kTiles * 4][32]>(staged);  // [tile][K quarter]
  __syncthreads();  // every warp has read its last stage
#pragma unroll
  for (int i = 0; i < kTiles; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) partial[tile][warp][4 * i + e][lane] = acc[i][e];
  __syncthreads();
  if (warp != 0 || !owns) return;
#pragma unroll
  for (int i = 0; i < kTiles; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) {  // D's layout: rows 2t and 2t + 1 of features g and g + 8
      const int row = 8 * i + 2 * t + (e & 1);
      if (row >= rows) continue;
      float v = partial[tile][0][4 * i + e][lane];
      for (int s = 1; s < kSplits && s * per_split < k_blocks; ++s) v += partial[tile][s][4 * i + e][lane];
      row_ptr<float>(y, row0 + row)[f0 + g + 8 * (e >> 1)] = linear_output(v, round, scale);
    }
}

// Starts the kernel for one tile height, with the dynamic shared memory its stages take.
template <int kTiles, bool kAsyncX, int kPair = 1>
void launch_tiles(const WeightRef& w, int64_t groups, View x, View y, bool round, float scale, bool first_group,
                  Stream s) {
  constexpr auto kernel = fp8_dense_mma_kernel<kTiles, kAsyncX, kPair>;
  constexpr size_t bytes = size_t(kSplits) * kDepth * 8 * kTiles * kStageStride * sizeof(float);
  allow_shared_bytes<kernel, bytes>();
  const int64_t feature_tiles = w.rows / kFeatures;
  const dim3 grid(unsigned((x.rows + 8 * kTiles - 1) / (8 * kTiles)), unsigned((feature_tiles + kPair - 1) / kPair));
  launch(s, "fp8_dense_mma", kernel, grid, dim3(kThreads * kPair), bytes, w, groups, x, y, round, scale, first_group);
}

}  // namespace

bool fp8_dense_mma_takes(const WeightRef& w, int64_t groups) {
  return w.format == kFp8Blocks && w.cols % 128 == 0 && w.rows % groups == 0 && (w.rows / groups) % kFeatures == 0 &&
         w.rows / kFeatures <= 65535;
}

void fp8_dense_mma(const WeightRef& w, int64_t groups, View x, View y, bool round_bf16, float output_scale, Stream s) {
  if (x.rows == 0) return;
  PLUMB_CHECK(fp8_dense_mma_takes(w, groups) && x.cols == w.cols * groups && y.cols == w.rows);
  const bool async_x = reinterpret_cast<uintptr_t>(x.data) % 16 == 0 && x.stride % 4 == 0;
  const bool first_group = kernels::planted(kGroupsReadFirstGroup);
  // Two feature tiles a block sharing the staged activations: wo_a 13.5 -> 12.3 us at 1 row, 22.7 -> 18.8 at 8, 44.3 ->
  // 26.7 at 16 (H200, session 24). PLUMB_WO_A_PAIRS=0 (an A/B switch, the same bits): one feature tile a block.
  // The pairs need both tiles in one group.
  static const bool pairs = env_switch_on("PLUMB_WO_A_PAIRS");
  if (pairs && async_x && (w.rows / groups) % (2 * kFeatures) == 0) {
    x.rows <= 8 ? launch_tiles<1, true, 2>(w, groups, x, y, round_bf16, output_scale, first_group, s)
                : launch_tiles<2, true, 2>(w, groups, x, y, round_bf16, output_scale, first_group, s);
  } else if (x.rows <= 8) {
    async_x ? launch_tiles<1, true>(w, groups, x, y, round_bf16, output_scale, first_group, s)
            : launch_tiles<1, false>(w, groups, x, y, round_bf16, output_scale, first_group, s);
  } else {
    async_x ? launch_tiles<2, true>(w, groups, x, y, round_bf16, output_scale, first_group, s)
            : launch_tiles<2, false>(w, groups, x, y, round_bf16, output_scale, first_group, s);
  }
}

}  // namespace plumb::cuda::ops
