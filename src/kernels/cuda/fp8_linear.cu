#include <algorithm>

#include "base/env_switch.h"
#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/fp8_linear.h"
#include "kernels/cuda/fp8_linear_device.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/zero.h"

namespace plumb::cuda {
using namespace fp8_detail;
namespace {

const kernels::ControlId kDropLastKBlock =
    kernels::register_control("fp8_linear_cuda", "drop_last_k_block", "the last 128-wide K block is skipped");
const kernels::ControlId kRowsReadPassFirstRow =
    kernels::register_control("fp8_linear_cuda", "rows_read_pass_first_row", "every row of a pass reads the pass's first row");

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

// With kBlockSum, a tile's K splits are neighbouring warps of one block (W of them a block, W a multiple of the
// splits), and after each pass they hand their sums to split 0 through shared memory, which adds them in ascending
// split order (the global tail's order, so the same bits) and writes the outputs: no partials, fences or arrival
// atomic. `active` is false for warps past the last tile, which still meet the block's barriers. H200 (session 13
// call 1): wo_b (8 splits) 14.7 -> 13.5 us at 1 row, 17.9 -> 14.2 at 8, 37.4 -> 24.3 at 16.
template <int NT, int W>
__device__ __forceinline__ void sum_pass_in_block(const LinearArgs& a, int64_t base, int split, bool active,
                                                  int64_t m0, int64_t m1, int t, const float (&acc)[NT][4]) {
  __shared__ float sums[W][NT * 4][32];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
#pragma unroll
  for (int i = 0; i < NT * 4; ++i) sums[warp][i][lane] = acc[i / 4][i % 4];
  __syncthreads();
  if (active && split == 0) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t row = base + nt * 8 + 2 * t + (j & 1);
        if (row >= a.rows) continue;
        float sum = sums[warp][nt * 4 + j][lane];
        for (int s = 1; s < a.splits; ++s) sum += sums[warp + s][nt * 4 + j][lane];
        store_output(a, row, j < 2 ? m0 : m1, sum);
      }
    }
  }
  __syncthreads();  // the next pass overwrites the sums
}

// The two-launch kernel (act_quant_kernel first): a warp owns 16 output features and one K split; each pass
// covers NT * 8 rows. With several splits, either the block sums them (kBlockSum, above) or the last warp of a
// feature tile to finish sums the splits' partials in ascending order (the same order every launch). The 8-row
// variant is held to 128 registers so 16 warps fit per multiprocessor: at 148 registers 12 did, and wq_b's 2048
// warps ran in two waves.
template <int NT, int W, bool kBlockSum>
__global__ void __launch_bounds__(W * 32, NT == 1 ? 16 / W : 1) fp8_linear_kernel(LinearArgs a) {
  const int warp_id = int(blockIdx.x) * W + int(threadIdx.x) / 32;  // 32-bit: no 64-bit division
  const int mtiles = int(a.n / 16);
  const bool active = !kBlockSum || warp_id < mtiles * a.splits;  // without kBlockSum, inactive warps return
  const int64_t mtile = active ? warp_id / a.splits : 0;           // an inactive warp reads tile 0, unused
  const int split = warp_id % a.splits;
  const int64_t kblocks = a.k / 128;
  const int64_t per_split = kblocks / a.splits;
  const int64_t kb0 = split * per_split;
  wait_for_earlier_kernels();
  allow_next_kernel();
  if (!kBlockSum && warp_id >= mtiles * a.splits) return;
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
    if constexpr (kBlockSum) {
      sum_pass_in_block<NT, W>(a, base, split, active, m0, m1, t, acc);
    } else {
      finish_pass<NT>(a, base, split, m0, m1, t, acc);
    }
  }
  if (!kBlockSum && a.splits > 1) sum_splits(a, mtile, lane);
}

// One block of the one-launch kernel (block numbers its place in this linear's grid): a block's four warps share one
// K split and own 16 output features each, and for each pass of 8 NT rows the block first quantizes the rows over
// that split into shared memory (no act_quant launch). Every block pays for that quantization, so fp8_linear picks
// it only where that costs less than the launch saved. NT = 2 (9-16 rows) loads and widens each weight fragment
// once for both 8-row tiles, with one quantization and one barrier a launch; each row's MMAs, promotion and partial
// are those of an 8-row pass.
template <int NT>
__device__ __forceinline__ void fused_linear_block(const LinearArgs& a, const LinearInput& in, int block) {
  extern __shared__ __align__(16) uint8_t pass_smem[];
  constexpr int kRows = kPassRows * NT;
  const int mtiles = int(a.n / 16);
  const int split = block % a.splits;
  const int64_t mtile = int64_t(block / a.splits) * kWarpsPerBlock + int(threadIdx.x) / 32;
  const bool owns_tile = mtile < mtiles;  // a warp past the last tile still helps quantize
  const int64_t kblocks = a.k / 128;
  const int64_t per_split = kblocks / a.splits;
  const int64_t kb0 = split * per_split;
  const PassActs s{pass_smem, reinterpret_cast<float*>(pass_smem + kRows * pass_row_bytes(per_split)),
                   pass_row_bytes(per_split), int(per_split)};
  wait_for_earlier_kernels();
  allow_next_kernel();
  const int64_t kb1 = kb0 + per_split - (a.control == control_drop_last && split == a.splits - 1 ? 1 : 0);
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t m0 = (owns_tile ? mtile : 0) * 16 + g, m1 = m0 + 8;
  const int64_t wscale_cols = (a.k + 127) / 128;
  const uint8_t* wscale_row = a.wscale + (((owns_tile ? mtile : 0) * 16) / 128) * wscale_cols;

  for (int64_t base = 0; base < a.rows; base += kRows) {
    BlockLoad<NT> cur, nxt;
    if (owns_tile) load_weights(a, m0, m1, kb0, t, cur.w);  // in flight while the block quantizes
    if (base > 0) __syncthreads();                          // the last pass has read its activations
    quantize_pass(a, in, base, kRows, kb0, s, int(threadIdx.x) / 32, kWarpsPerBlock);
    __syncthreads();
    if (!owns_tile) continue;
    float acc[NT][4] = {};
    // One 8-row tile: the next K block's activations prefetched with its weights. Two: read from shared memory when
    // used (prefetched, both tiles' fragments spilled at 168 registers).
    if constexpr (NT == 1) load_acts_shared<NT>(a, s, 0, g, t, cur);
    for (int64_t kb = kb0; kb < kb1; ++kb) {
      if (kb + 1 < kb1) {
        load_weights(a, m0, m1, kb + 1, t, nxt.w);
        if constexpr (NT == 1) load_acts_shared<NT>(a, s, int(kb + 1 - kb0), g, t, nxt);
      }
      if constexpr (NT > 1) load_acts_shared<NT>(a, s, int(kb - kb0), g, t, cur);
      mma_block<NT>(cur, e8m0_value(wscale_row[kb]), acc);
      cur = nxt;
    }
    finish_pass<NT>(a, base, split, m0, m1, t, acc);
  }
  if (owns_tile && a.splits > 1) sum_splits(a, mtile, lane);
}

template <int NT>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 4) fp8_linear_fused_kernel(LinearArgs a, LinearInput in) {
  fused_linear_block<NT>(a, in, int(blockIdx.x));
}

// Two one-launch linears of the same input in one grid (the shared expert's w1 and w3): the first a_blocks blocks
// are a's, the rest b's. Each keeps its own grid, splits, partials and arrival counters, so each output's bits are
// those of its own launch; one launch's fixed cost (about 2.5 us alone, H200) is saved.
template <int NT>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 4)
    fp8_linear_fused_pair_kernel(LinearArgs a, LinearArgs b, int a_blocks, LinearInput in) {
  if (int(blockIdx.x) < a_blocks) {
    fused_linear_block<NT>(a, in, int(blockIdx.x));
  } else {
    fused_linear_block<NT>(b, in, int(blockIdx.x) - a_blocks);
  }
}

size_t align256(size_t b) { return (b + 255) / 256 * 256; }
constexpr size_t kMaxPassBytes = 200 << 10;

// The one-launch kernel's grid for one linear: a block per four feature tiles and K split.
int fused_blocks(const LinearArgs& a) { return int((a.n / 16 + kWarpsPerBlock - 1) / kWarpsPerBlock * a.splits); }

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
  static const bool on = env_switch_on("PLUMB_FP8_PAIR");
  return on;
}

// PLUMB_FP8_BLOCK_SUM=0 sends the two-launch kernel's K splits through the global tail (an A/B switch; same bits).
bool block_sum_enabled() {
  static const bool on = env_switch_on("PLUMB_FP8_BLOCK_SUM");
  return on;
}

// The two-launch kernel for one pass size: up to 8 K splits summed in blocks of max(4, splits) warps, more through
// the global tail in blocks of 4.
template <int NT>
void launch_two_launch_kernel(const LinearArgs& a, Stream stream) {
  const int64_t warps = (a.n / 16) * a.splits;
  auto blocks = [&](int w) { return dim3(unsigned((warps + w - 1) / w)); };
  if (a.splits > 1 && a.splits <= 4 && block_sum_enabled()) {
    launch(stream, "fp8_linear", fp8_linear_kernel<NT, 4, true>, blocks(4), dim3(4 * 32), 0, a);
  } else if (a.splits > 4 && a.splits <= 8 && block_sum_enabled()) {
    launch(stream, "fp8_linear", fp8_linear_kernel<NT, 8, true>, blocks(8), dim3(8 * 32), 0, a);
  } else {
    launch(stream, "fp8_linear", fp8_linear_kernel<NT, kWarpsPerBlock, false>, blocks(kWarpsPerBlock),
           dim3(kWarpsPerBlock * 32), 0, a);
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
  const bool quantize_here = quantize_in_linear(quantize, per_split);
  // Up to 16 rows the cluster kernel takes the rows where it applies, 8 a pass (or at 9-16 rows one pass of two
  // tiles, unless 8 rows a pass were asked for): its weights stay in registers, where the two-launch kernel's 16-row
  // pass sums 16 rows of every split through global memory.
  const bool cluster_rows = rows_per_pass == 8 || (rows_per_pass == 0 && rows <= 16);
  if (cluster_rows && quantize_here && launch_cluster_linear(a, in, per_split, rows_per_pass == 0, stream)) return;
  if (rows_per_pass == 0) rows_per_pass = rows <= 8 ? 8 : rows <= 16 ? 16 : 32;
  if (rows_per_pass == 8 && quantize_here) {
    const size_t smem = pass_acts_bytes(8, per_split);
    if (smem > kMaxPassBytes)
      fail("fp8_linear: a {}x{} weight needs {} bytes of shared memory a pass (at most {})", w.n, w.k, smem,
           kMaxPassBytes);
    allow_shared_bytes<fp8_linear_fused_kernel<1>, kMaxPassBytes>();
    launch(stream, "fp8_linear_fused", fp8_linear_fused_kernel<1>, dim3(unsigned(fused_blocks(a))),
           dim3(kWarpsPerBlock * 32), smem, a, in);
    return;
  }
  PLUMB_CHECK(quantize != Fp8Quantize::in_linear);  // the one-launch kernel has 8-row passes only
  if (io.x_f32) {
    quantize_rows(static_cast<const float*>(io.x), in.stride, rows, w.k, call.xq, call.xs, stream);
  } else {
    quantize_rows(static_cast<const uint16_t*>(io.x), in.stride, rows, w.k, call.xq, call.xs, stream);
  }
  switch (rows_per_pass) {
    case 8: launch_two_launch_kernel<1>(a, stream); break;
    case 16: launch_two_launch_kernel<2>(a, stream); break;
    case 32: launch_two_launch_kernel<4>(a, stream); break;
    default: fail("fp8_linear: rows_per_pass must be 8, 16 or 32, got {}", rows_per_pass);
  }
}

void fp8_linear_pair(const Fp8WeightView& w1, const LinearIo& io1, void* workspace1, const Fp8WeightView& w2,
                     const LinearIo& io2, void* workspace2, int64_t rows, Stream stream) {
  if (rows == 0) return;
  const Call c1 = prepare_call(w1, io1, rows, workspace1), c2 = prepare_call(w2, io2, rows, workspace2);
  // Up to 16 rows: at 9-16 the fused pair kernel's two 8-row passes replace two two-launch linears (24 us each at 16
  // rows, session 11 call 7); the cluster pair kernel does not fit one wave at the shared expert's width.
  const bool one_launch = pair_enabled() && rows <= 16 && io1.x == io2.x && io1.x_f32 == io2.x_f32 &&
                          c1.in.stride == c2.in.stride && w1.k == w2.k && c1.per_split == c2.per_split &&
                          quantize_in_linear(Fp8Quantize::automatic, c1.per_split) &&
                          pass_acts_bytes(8, c1.per_split) <= kMaxPassBytes;
  if (!one_launch) {
    fp8_linear(w1, io1, rows, workspace1, 0, stream);
    fp8_linear(w2, io2, rows, workspace2, 0, stream);
    return;
  }
  if (c1.a.splits == c2.a.splits && launch_cluster_pair(c1.a, c2.a, c1.in, c1.per_split, stream)) return;
  const int a_blocks = fused_blocks(c1.a);
  const dim3 grid(unsigned(a_blocks + fused_blocks(c2.a)));
  if (rows > 8 && pass16_enabled() && pass_acts_bytes(16, c1.per_split) <= kMaxPassBytes) {  // one 16-row pass
    allow_shared_bytes<fp8_linear_fused_pair_kernel<2>, kMaxPassBytes>();
    launch(stream, "fp8_linear_fused_pair", fp8_linear_fused_pair_kernel<2>, grid, dim3(kWarpsPerBlock * 32),
           pass_acts_bytes(16, c1.per_split), c1.a, c2.a, a_blocks, c1.in);
    return;
  }
  allow_shared_bytes<fp8_linear_fused_pair_kernel<1>, kMaxPassBytes>();
  launch(stream, "fp8_linear_fused_pair", fp8_linear_fused_pair_kernel<1>, grid, dim3(kWarpsPerBlock * 32),
         pass_acts_bytes(8, c1.per_split), c1.a, c2.a, a_blocks, c1.in);
}

void fp8_linear(const Fp8WeightView& w, const uint16_t* x, int64_t rows, uint16_t* y, void* workspace,
                int rows_per_pass, Stream stream, Fp8Quantize quantize) {
  LinearIo io;
  io.x = x;
  io.y = y;
  fp8_linear(w, io, rows, workspace, rows_per_pass, stream, quantize);
}

}  // namespace plumb::cuda
