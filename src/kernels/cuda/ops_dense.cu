// CUDA backend ops on dense rows: the unquantized linear, embedding, rounding simulation, Hadamard, sums, SwiGLU and
// row copies (release numerics; ops_cuda.h). The norms and RoPE are in ops_norm_rope.cu.
#include <cmath>
#include <type_traits>

#include "base/env_switch.h"
#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/fp8_dense_mma.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/ops_common.cuh"

namespace plumb::cuda::ops {
namespace {

const kernels::ControlId kScaleExponentOffByOne = kernels::register_control(
    "act_quant_cuda", "scale_exponent_off_by_one", "the simulated rounding uses half the release's block scale");
const kernels::ControlId kLastStageSkipped =
    kernels::register_control("hadamard_cuda", "last_stage_skipped", "the last butterfly stage is left out");
const kernels::ControlId kRepeatSkipped = kernels::register_control(
    "add_cuda", "repeat_skipped", "the second operand is added to its first copy's columns only");

constexpr int kRowsPerPass = 8;

// The lanes' partial sums of rows base.. joined by a fixed xor tree, rounded and scaled, written by lane 0.
template <int P>
__device__ __forceinline__ void store_outputs(const float (&acc)[P], int64_t base, int64_t rows, int lane, bool round,
                                              float scale, View y, int64_t o) {
  for (int r = 0; r < P; ++r) {
    if (base + r >= rows) break;
    const float v = warp_sum(acc[r]);
    if (lane == 0) row_ptr<float>(y, base + r)[o] = linear_output(v, round, scale);
  }
}

// Eight consecutive weights of row o from column c0, element by element (0 past the last column). Only the rows
// dense_linear_vector_kernel does not take come here (other formats, or a column count not a multiple of 8).
__device__ __forceinline__ void load_weights8(const WeightRef& w, int64_t o, int64_t c0, float (&wv)[8]) {
  for (int i = 0; i < 8; ++i) wv[i] = c0 + i < w.cols ? weight_at(w, o, c0 + i) : 0.0f;
}

// One warp per output feature; lanes take 8 consecutive K values per step (k ascending within a lane), a fixed
// xor tree joins the lanes. Each row's sum is its own: rows share the weight loads, never arithmetic. The next
// step's weights are loaded before this step's products, so two steps of loads are in flight.
__global__ void dense_linear_kernel(WeightRef w, int64_t groups, View x, View y, bool round, float scale) {
  kernel_prologue();
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  const int lane = threadIdx.x % 32;
  const int64_t per_group = w.rows / groups;
  for (int64_t o = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; o < w.rows; o += warps) {
    const int64_t xoff = (o / per_group) * w.cols;
    for (int64_t base = 0; base < x.rows; base += kRowsPerPass) {
      float acc[kRowsPerPass];
      for (int r = 0; r < kRowsPerPass; ++r) acc[r] = 0.0f;
      float wv[8], next[8];
      if (int64_t(lane) * 8 < w.cols) load_weights8(w, o, int64_t(lane) * 8, wv);
      for (int64_t c0 = int64_t(lane) * 8; c0 < w.cols; c0 += 256) {
        if (c0 + 256 < w.cols) load_weights8(w, o, c0 + 256, next);
        for (int r = 0; r < kRowsPerPass; ++r) {
          if (base + r >= x.rows) break;
          const float* xr = row_ptr<const float>(x, base + r) + xoff;
          for (int i = 0; i < 8 && c0 + i < w.cols; ++i) acc[r] += wv[i] * xr[c0 + i];
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) wv[i] = next[i];
      }
      store_outputs(acc, base, x.rows, lane, round, scale, y, o);
    }
  }
}

// The same sums for bf16 (F = 2) or FP8 (F = 0) rows whose column count is a multiple of 8, where every step is one
// vector load per lane: a lane loads kChunkSteps steps before it multiplies any, so that many loads are in flight
// (the format fixed at compile time keeps the registers few enough for it). A warp takes R consecutive output
// features of one group, so each activation load serves R of them (the activations, 4-byte floats, were most of
// the L1 traffic). Activation rows go P at a time (P sums per feature in registers). Each feature's sum is the
// same sequence of operations whatever R and P. C steps of loads go out before their products (deeper for small
// matrices, whose few warps otherwise wait on memory latency step after step).
//
// kSharedX (every activation row in one pass; a block's features in one group, each warp one R-feature step): the
// block first copies its group's slice of the activation rows into shared
// memory with all its loads in flight, so the steps' activation reads cost a shared-memory access rather than an L2
// round trip each (the router gate and the compressors at decode were 12-30 us for 0.7-8.5 MB, waiting on those).
//
// kBatchX (launches of more than kBatchAfterRows rows): every row's activations of a step are loaded before any row's
// products. Loaded row by row after a row-count test, each load was its own round trip to L2: at 16 rows (ncu, H200,
// session 13 call 6) a 256 x 4096 bf16 matrix took 103-107 us (8 at one row) and wo_a 273; batched, 30-33 and 205
// us. The products and their order are the same. At one row the batched code cost the round 5% (more registers, the
// absent rows' tests), so small launches keep the row-by-row loop.
//
// kRowWarps (batched only): a launch's P-row passes of a feature go to consecutive warps instead of one warp's loop,
// so small matrices at many rows have passes x features warps (the indexer's head weights at 16 rows: 64 warps in
// 8 blocks, 30 us for 0.5 MB, H200). The warps of a feature share its weights through the L1 and L2.
constexpr int64_t kBatchAfterRows = 4;
template <int F, bool kVectorX, int R, int P, int C, bool kSharedX = false, bool kBatchX = false,
          bool kRowWarps = false>
__global__ void dense_linear_vector_kernel(WeightRef w, int64_t groups, View x, View y, bool round, float scale) {
  extern __shared__ __align__(16) float x_shared[];  // kSharedX: [x.rows][w.cols]
  using Raw = std::conditional_t<F == 2, uint4, uint2>;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  const int lane = threadIdx.x % 32;
  const int64_t per_group = w.rows / groups, steps = (w.cols + 255) / 256;
  wait_for_earlier_kernels();
  allow_next_kernel();
  if constexpr (kSharedX) {  // the block's group's slice of every row (its features share one group)
    constexpr int kWidth = kVectorX ? 4 : 1;
    using Chunk = std::conditional_t<kVectorX, float4, float>;
    const int per_row = int(w.cols) / kWidth;
    const int64_t slice = (int64_t(blockIdx.x) * (blockDim.x / 32) * R / per_group) * w.cols;
    loads_then_stores<8, Chunk>(
        int(x.rows) * per_row,
        [&](int i) { return reinterpret_cast<const Chunk*>(row_ptr<const float>(x, i / per_row) + slice)[i % per_row]; },
        [&](int i, Chunk v) { reinterpret_cast<Chunk*>(x_shared)[i] = v; });
    __syncthreads();
  }
  const int64_t passes = kRowWarps ? (x.rows + P - 1) / P : 1;  // warps a feature step
  const int64_t warp_id = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  for (int64_t o0 = (warp_id / passes) * R; o0 < w.rows; o0 += (warps / passes) * R) {
    const int64_t xoff = (o0 / per_group) * w.cols;  // R divides per_group: the R features share a group
    const Raw* rows[R];
#pragma unroll
    for (int q = 0; q < R; ++q)
      rows[q] = reinterpret_cast<const Raw*>(static_cast<const uint8_t*>(w.data) + (o0 + q) * w.cols * (F == 2 ? 2 : 1));
    for (int64_t base = kRowWarps ? (warp_id % passes) * P : 0; base < x.rows; base += kRowWarps ? x.rows : P) {
      float acc[R][P];
#pragma unroll
      for (int q = 0; q < R; ++q)
        for (int r = 0; r < P; ++r) acc[q][r] = 0.0f;
      for (int64_t s0 = 0; s0 < steps; s0 += C) {
        Raw raw[R][C];
#pragma unroll
        for (int j = 0; j < C; ++j) {
          const int64_t c0 = int64_t(lane) * 8 + 256 * (s0 + j);
#pragma unroll
          for (int q = 0; q < R; ++q)
            if (c0 < w.cols) raw[q][j] = rows[q][c0 / 8];
        }
#pragma unroll
        for (int j = 0; j < C; ++j) {
          const int64_t c0 = int64_t(lane) * 8 + 256 * (s0 + j);
          if (c0 >= w.cols) break;
          float wv[R][8];
#pragma unroll
          for (int q = 0; q < R; ++q) {
            if constexpr (F == 2) {
              const uint32_t words[4] = {raw[q][j].x, raw[q][j].y, raw[q][j].z, raw[q][j].w};
#pragma unroll
              for (int i = 0; i < 4; ++i) {
                wv[q][2 * i] = bf16_bits_to_float(uint16_t(words[i]));
                wv[q][2 * i + 1] = bf16_bits_to_float(uint16_t(words[i] >> 16));
              }
            } else {
              const float sc = e8m0_value(w.scales[((o0 + q) / 128) * w.scale_cols + c0 / 128]);
#pragma unroll
              for (int i = 0; i < 4; ++i) {  // codes 2i and 2i + 1, converted together
                const float2 v = e4m3x2_values(uint16_t((i < 2 ? raw[q][j].x : raw[q][j].y) >> (16 * (i % 2))));
                wv[q][2 * i] = v.x * sc;
                wv[q][2 * i + 1] = v.y * sc;
              }
            }
          }
          if constexpr (kBatchX) {
            float xv[P][8];
#pragma unroll
            for (int r = 0; r < P; ++r) {
              if (base + r >= x.rows) continue;
              const float* xr = row_ptr<const float>(x, base + r) + xoff + c0;
              if constexpr (kVectorX) {
                const float4 a = *reinterpret_cast<const float4*>(xr), b = *reinterpret_cast<const float4*>(xr + 4);
                xv[r][0] = a.x, xv[r][1] = a.y, xv[r][2] = a.z, xv[r][3] = a.w;
                xv[r][4] = b.x, xv[r][5] = b.y, xv[r][6] = b.z, xv[r][7] = b.w;
              } else {
#pragma unroll
                for (int i = 0; i < 8; ++i) xv[r][i] = xr[i];
              }
            }
#pragma unroll
            for (int r = 0; r < P; ++r) {
              if (base + r >= x.rows) continue;
#pragma unroll
              for (int q = 0; q < R; ++q)
#pragma unroll
                for (int i = 0; i < 8; ++i) acc[q][r] += wv[q][i] * xv[r][i];
            }
          } else {
            for (int r = 0; r < P; ++r) {
              if (base + r >= x.rows) break;
              const float* xr = kSharedX ? x_shared + (base + r) * w.cols + c0
                                         : row_ptr<const float>(x, base + r) + xoff + c0;
              float xv[8];
              if constexpr (kVectorX) {  // two 16-byte loads instead of eight: L1 request rate was the limit
                const float4 a = *reinterpret_cast<const float4*>(xr), b = *reinterpret_cast<const float4*>(xr + 4);
                xv[0] = a.x, xv[1] = a.y, xv[2] = a.z, xv[3] = a.w, xv[4] = b.x, xv[5] = b.y, xv[6] = b.z, xv[7] = b.w;
              } else {
#pragma unroll
                for (int i = 0; i < 8; ++i) xv[i] = xr[i];
              }
#pragma unroll
              for (int q = 0; q < R; ++q)
#pragma unroll
                for (int i = 0; i < 8; ++i) acc[q][r] += wv[q][i] * xv[i];
            }
          }
        }
      }
#pragma unroll
      for (int q = 0; q < R; ++q) store_outputs(acc[q], base, x.rows, lane, round, scale, y, o0 + q);
    }
  }
}

__global__ void embed_kernel(WeightRef table, const int32_t* tokens, int64_t copies, View out) {
  kernel_prologue();
  const int64_t r = blockIdx.x;
  for (int64_t c = threadIdx.x; c < out.cols; c += blockDim.x)
    row_ptr<float>(out, r)[c] = weight_at(table, tokens[r], c % table.cols);
}

__device__ __forceinline__ float round_e2m1(float x) {
  // Nearest on {0, .5, 1, 1.5, 2, 3, 4, 6}, ties to the even code; |x| <= 6 here (clamped before).
  const float grid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float a = fabsf(x);
  int best = 0;
  for (int i = 1; i < 8; ++i) {
    const float d_best = fabsf(a - grid[best]), d = fabsf(a - grid[i]);
    if (d < d_best || (d == d_best && (i & 1) == 0)) best = i;
  }
  return copysignf(grid[best], x);
}

// FP8 (block of 64) or FP4 (block of 32) rounding simulation of one block: the release's inplace act_quant.
__global__ void quant_sim_kernel(int format, int64_t block, int64_t col_begin, View x, int scale_shift) {
  kernel_prologue();
  __shared__ float shared_max[32];
  float* v = row_ptr<float>(x, blockIdx.x) + col_begin + int64_t(blockIdx.y) * block;
  float amax = 0.0f;
  for (int64_t i = threadIdx.x; i < block; i += blockDim.x) amax = fmaxf(amax, fabsf(v[i]));
  for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  if (threadIdx.x % 32 == 0) shared_max[threadIdx.x / 32] = amax;
  __syncthreads();
  amax = 0.0f;
  for (int w = 0; w < int(blockDim.x / 32); ++w) amax = fmaxf(amax, shared_max[w]);
  int e;
  if (format == 0) {
    e = pow2_scale_exponent_dev(amax, 448.0f);
  } else if (isinf(amax)) {
    e = 128;  // as FP8's float32 scale overflows: an infinity stays infinite, finite values become 0
  } else {
    const double ratio = double(fmaxf(amax, 6.0f * ldexpf(1.0f, -126))) / 6.0;
    int ex;
    const double m = frexp(ratio, &ex);
    e = m == 0.5 ? ex - 1 : ex;
  }
  e -= scale_shift;
  const float fmax = format == 0 ? 448.0f : 6.0f;
  for (int64_t i = threadIdx.x; i < block; i += blockDim.x) {
    float q = fminf(fmaxf(ldexpf(v[i], -e), -fmax), fmax);
    if (isnan(v[i])) q = v[i];  // NaN stays NaN (fminf/fmaxf would drop it; e2m1 has no NaN code)
    q = isnan(q) ? q : format == 0 ? e4m3_value(float_to_e4m3(q)) : round_e2m1(q);
    v[i] = bf16r(ldexpf(q, e));
  }
}

__global__ void hadamard_kernel(int64_t size, bool last_stage_skipped, View x) {
  kernel_prologue();
  extern __shared__ float buf[];
  float* v = row_ptr<float>(x, blockIdx.x) + int64_t(blockIdx.y) * size;
  for (int64_t i = threadIdx.x; i < size; i += blockDim.x) buf[i] = v[i];
  __syncthreads();
  for (int64_t h = 1; h < (last_stage_skipped ? size / 2 : size); h *= 2) {
    for (int64_t t = threadIdx.x; t < size / 2; t += blockDim.x) {
      const int64_t j = (t / h) * 2 * h + t % h;
      const float a = buf[j], b = buf[j + h];
      buf[j] = a + b;
      buf[j + h] = a - b;
    }
    __syncthreads();
  }
  const float scale = float(1.0 / sqrt(double(size)));
  for (int64_t i = threadIdx.x; i < size; i += blockDim.x) v[i] = bf16r(buf[i] * scale);
}

__global__ void add_kernel(View a, View b, bool repeat_skipped, View out) {
  kernel_prologue();
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out.rows * out.cols) return;
  const int64_t r = i / out.cols, c = i % out.cols;
  const float addend = repeat_skipped && c >= b.cols ? 0.0f : row_ptr<const float>(b, r)[c % b.cols];
  row_ptr<float>(out, r)[c] = bf16r(row_ptr<const float>(a, r)[c] + addend);
}

__global__ void swiglu_kernel(View a, View b, float limit, View out) {
  kernel_prologue();
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out.rows * out.cols) return;
  const int64_t r = i / out.cols, c = i % out.cols;
  float g = row_ptr<const float>(a, r)[c], u = row_ptr<const float>(b, r)[c];
  if (limit > 0) {  // comparisons keep NaN, as the release's clamp does
    g = g > limit ? limit : g;
    u = u > limit ? limit : (u < -limit ? -limit : u);
  }
  row_ptr<float>(out, r)[c] = bf16r(silu_f32(g) * u * 1.0f);
}

__global__ void copy_rows_kernel(View src, const int64_t* src_rows, View dst, const int64_t* dst_rows, int bytes) {
  kernel_prologue();
  const int64_t i = blockIdx.x;
  const char* from = static_cast<const char*>(src.data) + src_rows[i] * src.stride * bytes;
  char* to = static_cast<char*>(dst.data) + dst_rows[i] * dst.stride * bytes;
  const int64_t n = src.cols * bytes;
  if ((reinterpret_cast<uintptr_t>(from) | reinterpret_cast<uintptr_t>(to) | uintptr_t(n)) % 16 == 0) {
    for (int64_t c = threadIdx.x; c < n / 16; c += blockDim.x)  // 16 bytes a thread when all is aligned
      reinterpret_cast<uint4*>(to)[c] = reinterpret_cast<const uint4*>(from)[c];
    return;
  }
  for (int64_t c = threadIdx.x; c < n; c += blockDim.x) to[c] = from[c];
}

}  // namespace

constexpr size_t kMaxSharedX = 64 << 10;

// A vector kernel's row-by-row and batched instantiations (the batched one is the row-by-row one where kBatchable is
// false: the four-features variant runs at four rows at most).
template <int F, bool kVectorX, int R, int P, int C, bool kBatchable = true>
struct VectorKernels {
  static constexpr auto row_by_row = dense_linear_vector_kernel<F, kVectorX, R, P, C>;
  static constexpr auto batched = dense_linear_vector_kernel<F, kVectorX, R, P, C, false, kBatchable>;
};

// The deep bf16 kernel with the activation rows in shared memory (up to kMaxSharedX bytes).
template <bool kVectorX>
void start_shared_x(const WeightRef& w, View x, View y, bool round_bf16, float output_scale, Stream s) {
  constexpr auto kernel = dense_linear_vector_kernel<2, kVectorX, 1, kRowsPerPass, 16, true>;
  allow_shared_bytes<kernel, kMaxSharedX>();
  launch(s, "dense_linear", kernel, dim3(unsigned(std::min<int64_t>((w.rows + 7) / 8, 65535))), dim3(256),
         size_t(x.rows * w.cols) * sizeof(float), w, int64_t(1), x, y, round_bf16, output_scale);
}

// The four-features-a-warp FP8 kernel (wo_a at decode with PLUMB_DENSE_FP8_MMA=0) with its group's slice of the
// activation rows in shared memory: a block's 8 warps x 4 features stay in one group, and the grid covers every
// feature in one step.
template <bool kVectorX>
void start_grouped_shared_x(const WeightRef& w, int64_t groups, View x, View y, bool round_bf16, float output_scale,
                            Stream s) {
  constexpr auto kernel = dense_linear_vector_kernel<0, kVectorX, 4, 2, 4, true>;
  allow_shared_bytes<kernel, kMaxSharedX>();
  launch(s, "dense_linear", kernel, dim3(unsigned(w.rows / 32)), dim3(256), size_t(x.rows * w.cols) * sizeof(float), w,
         groups, x, y, round_bf16, output_scale);
}

// PLUMB_DENSE_ROW_WARPS=0 keeps small bf16 matrices at one warp a feature above four rows (an A/B switch; same bits).
bool row_warps_enabled() {
  static const bool on = env_switch_on("PLUMB_DENSE_ROW_WARPS");
  return on;
}

// PLUMB_DENSE_FOUR_ROWS8=0 gives large FP8 matrices one feature a warp above four rows (an A/B switch; same bits).
bool four_rows8_enabled() {
  static const bool on = env_switch_on("PLUMB_DENSE_FOUR_ROWS8");
  return on;
}

// FP8-weight dense linears whose shapes fp8_dense_mma takes (wo_a) run on the matrix unit; PLUMB_DENSE_FP8_MMA=0
// sends them to the FMA kernels below instead (an A/B switch: other sums, the tiny model's bits the same). The FMA
// kernels' FP8 paths serve the shapes the matrix-unit kernel does not take.
bool fp8_mma_enabled() {
  static const bool on = env_switch_on("PLUMB_DENSE_FP8_MMA");
  return on;
}

void dense_linear(const WeightRef& w, int64_t groups, View x, View y, bool round_bf16, float output_scale, Stream s) {
  if (x.rows == 0) return;
  if (fp8_dense_mma_takes(w, groups) && fp8_mma_enabled())
    return fp8_dense_mma(w, groups, x, y, round_bf16, output_scale, s);
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((w.rows + 7) / 8, 65535);
  // x rows as float4 pairs when every row start is 16-byte aligned (w.cols % 8 == 0 keeps each lane's 8 aligned).
  const bool vector_x = reinterpret_cast<uintptr_t>(x.data) % 16 == 0 && x.stride % 4 == 0;
  // start(VectorKernels<...>{}, features a warp): the batched kernel above kBatchAfterRows rows.
  const auto start = [&](auto kernels, int features_per_warp) {
    using K = decltype(kernels);
    const int64_t warps = (w.rows + features_per_warp - 1) / features_per_warp;
    launch(s, "dense_linear", x.rows > kBatchAfterRows ? K::batched : K::row_by_row,
           dim3(unsigned(std::min<int64_t>((warps + 7) / 8, 65535))), dim3(threads), 0, w, groups, x, y, round_bf16,
           output_scale);
  };
  // Four features per warp for large FP8 matrices (wo_a: 8192 rows, still 2048 warps): two activation rows a pass
  // at up to four rows (47 -> 21 us at one row, H200), eight rows a pass batched above (206 -> 114 us at 16 rows,
  // session 14 call 1). One feature and eight rows elsewhere, where fewer warps would leave the GPU idle or more
  // passes would read the weights again.
  const bool large_fp8 = w.format == kFp8Blocks && w.rows >= 4096 && (w.rows / groups) % 4 == 0;
  const bool four = large_fp8 && x.rows <= 4;
  const bool many_rows_four = large_fp8 && x.rows > kBatchAfterRows && four_rows8_enabled();
  // Sixteen steps of loads in flight for bf16 matrices of up to 2048 rows (the router gate, the compressors and the
  // indexer's weights: a few hundred warps, each otherwise waiting on memory latency four steps at a time).
  const bool deep = w.format == kBf16 && w.rows <= 2048;
  // Above four rows, bf16 matrices of up to 256 features (the router gate, the indexer's head weights and its
  // compressor) give each 4-row pass of a feature its own warp: at 16 rows 30-32 -> 13.6-14.3 us a launch, the round
  // -4% (H200, session 15 call 4). The compressors' 1024 features were slower so (32 -> 38 us) and keep one warp.
  constexpr int kRowsPerWarp = 4;
  const int64_t row_passes = (x.rows + kRowsPerWarp - 1) / kRowsPerWarp;
  const bool row_warps = deep && w.rows <= 256 && groups == 1 && x.rows > kBatchAfterRows &&
                         (w.rows * row_passes + 7) / 8 <= 65535 && row_warps_enabled();
  // The activation rows in shared memory when they fit in one pass and 64 KB (decode at up to four rows of 4096).
  const size_t shared_x = size_t(x.rows * w.cols) * sizeof(float);
  if (w.format == kBf16 && w.cols % 8 == 0 && deep && groups == 1 && x.rows <= kRowsPerPass && shared_x <= kMaxSharedX) {
    vector_x ? start_shared_x<true>(w, x, y, round_bf16, output_scale, s)
             : start_shared_x<false>(w, x, y, round_bf16, output_scale, s);
  } else if (w.format == kBf16 && w.cols % 8 == 0 && row_warps) {  // a warp for each (feature, pass), at once
    launch(s, "dense_linear",
           vector_x ? dense_linear_vector_kernel<2, true, 1, kRowsPerWarp, 16, false, true, true>
                    : dense_linear_vector_kernel<2, false, 1, kRowsPerWarp, 16, false, true, true>,
           dim3(unsigned((w.rows * row_passes + 7) / 8)), dim3(threads), 0, w, groups, x, y, round_bf16, output_scale);
  } else if (w.format == kBf16 && w.cols % 8 == 0 && deep) {
    vector_x ? start(VectorKernels<2, true, 1, kRowsPerPass, 16>{}, 1)
             : start(VectorKernels<2, false, 1, kRowsPerPass, 16>{}, 1);
  } else if (w.format == kBf16 && w.cols % 8 == 0) {
    vector_x ? start(VectorKernels<2, true, 1, kRowsPerPass, 4>{}, 1)
             : start(VectorKernels<2, false, 1, kRowsPerPass, 4>{}, 1);
  } else if (w.format == kFp8Blocks && w.cols % 8 == 0 && four && (w.rows / groups) % 32 == 0 &&
             w.rows / 32 <= 65535 && shared_x <= kMaxSharedX) {
    vector_x ? start_grouped_shared_x<true>(w, groups, x, y, round_bf16, output_scale, s)
             : start_grouped_shared_x<false>(w, groups, x, y, round_bf16, output_scale, s);
  } else if (w.format == kFp8Blocks && w.cols % 8 == 0 && four) {
    vector_x ? start(VectorKernels<0, true, 4, 2, 4, false>{}, 4)
             : start(VectorKernels<0, false, 4, 2, 4, false>{}, 4);
  } else if (w.format == kFp8Blocks && w.cols % 8 == 0 && many_rows_four) {
    vector_x ? start(VectorKernels<0, true, 4, kRowsPerPass, 2>{}, 4)
             : start(VectorKernels<0, false, 4, kRowsPerPass, 2>{}, 4);
  } else if (w.format == kFp8Blocks && w.cols % 8 == 0) {
    vector_x ? start(VectorKernels<0, true, 1, kRowsPerPass, 4>{}, 1)
             : start(VectorKernels<0, false, 1, kRowsPerPass, 4>{}, 1);
  } else {
    launch(s, "dense_linear", dense_linear_kernel, dim3(unsigned(blocks)), dim3(threads), 0, w, groups, x, y, round_bf16,
           output_scale);
  }
}

void embed(const WeightRef& table, const int32_t* tokens, int64_t copies, View out, Stream s) {
  if (out.rows == 0) return;
  launch(s, "embed", embed_kernel, dim3(unsigned(out.rows)), dim3(256), 0, table, tokens, copies, out);
}

void quant_sim(int format, int64_t block, int64_t col_begin, int64_t col_end, View x, Stream s) {
  if (x.rows == 0 || col_end <= col_begin) return;
  const dim3 grid(unsigned(x.rows), unsigned((col_end - col_begin) / block));
  launch(s, "quant_sim", quant_sim_kernel, grid, dim3(32 * unsigned((block + 31) / 32)), 0, format, block, col_begin, x,
         kernels::planted(kScaleExponentOffByOne) ? 1 : 0);
}

void hadamard(int64_t size, View x, Stream s) {
  if (x.rows == 0) return;
  const dim3 grid(unsigned(x.rows), unsigned(x.cols / size));
  launch(s, "hadamard", hadamard_kernel, grid, dim3(64), size_t(size) * sizeof(float), size,
         kernels::planted(kLastStageSkipped), x);
}

void add(View a, View b, View out, Stream s) {
  const int64_t n = out.rows * out.cols;
  if (n == 0) return;
  launch(s, "add", add_kernel, dim3(blocks_for(n, 256)), dim3(256), 0, a, b, kernels::planted(kRepeatSkipped), out);
}

void swiglu(View a, View b, float limit, View out, Stream s) {
  const int64_t n = out.rows * out.cols;
  if (n == 0) return;
  launch(s, "swiglu", swiglu_kernel, dim3(blocks_for(n, 256)), dim3(256), 0, a, b, limit, out);
}

void copy_rows(View src, const int64_t* src_rows, View dst, const int64_t* dst_rows, int64_t count, int element_bytes,
               Stream s) {
  if (count == 0) return;
  launch(s, "copy_rows", copy_rows_kernel, dim3(unsigned(count)), dim3(256), 0, src, src_rows, dst, dst_rows,
         element_bytes);
}

}  // namespace plumb::cuda::ops
