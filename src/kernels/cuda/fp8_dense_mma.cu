// The dense linear with FP8 weights and unquantized activations (the grouped wo_a) on the matrix unit. The release
// runs wo_a as a bf16 GEMM (dequantized weights, bf16 activations, fp32 accumulation inside the matrix unit;
// dsv4-forward.md section 7). Here one mma.sync m16n8k8 tf32 tile takes 16 output features (M) by 8 activation
// rows (N): e4m3 codes and bf16 activations are exact in tf32, so every product is exact, and a row's column of the
// tile never reads another row's. Every row count, 1 to any, runs the same instructions over the same K order:
//   - a warp owns 16 features and a fixed quarter of K's 128-wide blocks (the weights' scale blocks);
//   - per K block, 16 MMAs from a zero accumulator, then the block's sum times its E8M0 scale is fma'd into the
//     warp's running sum (the FP8 linear's promotion);
//   - the block's four warps' sums are added in warp order, then rounded and scaled as dense_linear does.
// Rows go 8 to a block, one column tile (padding rows computed from zeros, never written); the blocks of a feature
// tile's row tiles are neighbours in the grid, so its weights come from memory once and from the L2 after.
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
constexpr int kBlockRows = 8;   // activation rows a block serves: the MMA's N
constexpr int kDepth = 2;       // K blocks of weights a lane has in flight

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

// kPairX: activation pairs as one 8-byte load.
// MMA j of a K block pairs logical column t with K offset 32t + 2j and column t + 4 with 32t + 2j + 1, so a lane's
// weights and activations are the same 32 consecutive K values.
template <bool kPairX>
__global__ void __launch_bounds__(kThreads, 4) fp8_dense_mma_kernel(WeightRef w, int64_t groups, View x, View y,
                                                                 bool round, float scale, bool first_group) {
  __shared__ float partial[kSplits][4][32];
  const int warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32), g = lane / 4, t = lane % 4;
  const int64_t f0 = int64_t(blockIdx.y) * kFeatures, k = w.cols, k_blocks = k / 128;
  const int64_t per_split = (k_blocks + kSplits - 1) / kSplits;
  const int64_t b0 = warp * per_split;
  const int64_t b1 = std::min(k_blocks, b0 + per_split);
  const auto* codes = static_cast<const uint8_t*>(w.data);
  const uint8_t* row_g = codes + (f0 + g) * k + 32 * t;
  const uint8_t* row_g8 = row_g + 8 * k;
  const uint8_t* scales = w.scales + (f0 / 128) * w.scale_cols;
  // The weights are constant: the first blocks' loads go out before the wait for earlier kernels.
  BlockCodes ring[kDepth];
#pragma unroll
  for (int s = 0; s < kDepth; ++s)
    if (b0 + s < b1) ring[s] = load_block_codes(row_g, row_g8, (b0 + s) * 128);
  kernel_prologue();
  const int64_t row0 = int64_t(blockIdx.x) * kBlockRows, xoff = (first_group ? 0 : f0 / (w.rows / groups)) * k + 32 * t;
  const float* xr = row0 + g < x.rows ? row_ptr<const float>(x, row0 + g) + xoff : nullptr;  // B's column g
  float acc[4] = {};
  for (int64_t kb0 = b0; kb0 < b1; kb0 += kDepth) {
#pragma unroll
    for (int s = 0; s < kDepth; ++s) {
      const int64_t kb = kb0 + s;
      if (kb >= b1) break;
      const BlockCodes c = ring[s];
      if (kb + kDepth < b1) ring[s] = load_block_codes(row_g, row_g8, (kb + kDepth) * 128);
      float2 xv[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const float* p = xr ? xr + kb * 128 + 2 * j : nullptr;
        xv[j] = !p ? make_float2(0.0f, 0.0f) : kPairX ? *reinterpret_cast<const float2*>(p) : make_float2(p[0], p[1]);
      }
      float d[4] = {};
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const float2 wg = code_pair(c.g_lo, c.g_hi, j), wg8 = code_pair(c.g8_lo, c.g8_hi, j);
        mma_tf32_16x8x8(d, __float_as_uint(wg.x), __float_as_uint(wg8.x), __float_as_uint(wg.y), __float_as_uint(wg8.y),
                        __float_as_uint(xv[j].x), __float_as_uint(xv[j].y));
      }
      const float sc = e8m0_value(scales[kb]);
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[e] = __fmaf_rn(d[e], sc, acc[e]);
    }
  }
#pragma unroll
  for (int e = 0; e < 4; ++e) partial[warp][e][lane] = acc[e];
  __syncthreads();
  if (warp != 0) return;
#pragma unroll
  for (int e = 0; e < 4; ++e) {  // D's layout: rows 2t and 2t + 1 of features g and g + 8
    const int64_t row = row0 + 2 * t + (e & 1), feature = f0 + g + 8 * (e >> 1);
    if (row >= x.rows) continue;
    float v = partial[0][e][lane];
    for (int s = 1; s < kSplits && s * per_split < k_blocks; ++s) v += partial[s][e][lane];
    v = round ? bf16r(v) : v;
    if (scale != 1.0f) {
      v *= scale;
      if (round) v = bf16r(v);
    }
    row_ptr<float>(y, row)[feature] = v;
  }
}

}  // namespace

bool fp8_dense_mma_takes(const WeightRef& w, int64_t groups) {
  return w.format == kFp8Blocks && w.cols % 128 == 0 && w.rows % groups == 0 && (w.rows / groups) % kFeatures == 0 &&
         w.rows / kFeatures <= 65535;
}

void fp8_dense_mma(const WeightRef& w, int64_t groups, View x, View y, bool round_bf16, float output_scale, Stream s) {
  if (x.rows == 0) return;
  PLUMB_CHECK(fp8_dense_mma_takes(w, groups) && x.cols == w.cols * groups && y.cols == w.rows);
  const bool pair_x = reinterpret_cast<uintptr_t>(x.data) % 8 == 0 && x.stride % 2 == 0;
  const dim3 grid(unsigned((x.rows + kBlockRows - 1) / kBlockRows), unsigned(w.rows / kFeatures));
  const bool first_group = kernels::planted(kGroupsReadFirstGroup);
  const auto kernel = pair_x ? fp8_dense_mma_kernel<true> : fp8_dense_mma_kernel<false>;
  launch(s, "fp8_dense_mma", kernel, grid, dim3(kThreads), 0, w, groups, x, y, round_bf16, output_scale, first_group);
}

}  // namespace plumb::cuda::ops
