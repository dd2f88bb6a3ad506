#include <algorithm>

#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/fp8_linear.h"
#include "kernels/cuda/mma_fp8.cuh"

namespace plumb::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;

const kernels::ControlId kDropLastKBlock =
    kernels::register_control("fp8_linear_cuda", "drop_last_k_block", "the last 128-wide K block is skipped");
const kernels::ControlId kRowsReadPassFirstRow =
    kernels::register_control("fp8_linear_cuda", "rows_read_pass_first_row", "every row of a pass reads the pass's first row");
enum : int { control_none = 0, control_drop_last = 1, control_first_row = 2 };

// One warp per 128-wide K block of one row: amax, the power-of-two scale, and the e4m3 codes.
__global__ void act_quant_kernel(const uint16_t* __restrict__ x, int64_t rows, int64_t k, uint8_t* __restrict__ codes,
                                 float* __restrict__ scales) {
  const int64_t kblocks = k / 128;
  const int64_t item = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (item >= rows * kblocks) return;
  const int lane = threadIdx.x % 32;
  const int64_t row = item / kblocks, kb = item % kblocks;
  const uint16_t* src = x + row * k + kb * 128 + lane * 4;
  const uint2 raw = *reinterpret_cast<const uint2*>(src);
  const float v[4] = {bf16_bits_to_float(uint16_t(raw.x)), bf16_bits_to_float(uint16_t(raw.x >> 16)),
                      bf16_bits_to_float(uint16_t(raw.y)), bf16_bits_to_float(uint16_t(raw.y >> 16))};
  float amax = fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3])));
  for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  const int e = pow2_scale_exponent_dev(amax, 448.0f);
  const float scale = ldexpf(1.0f, e);  // Inf for an Inf block: its codes become NaN, as the release's
  uint32_t packed = 0;
  for (int i = 0; i < 4; ++i) packed |= uint32_t(float_to_e4m3(__fdiv_rn(v[i], scale))) << (8 * i);
  *reinterpret_cast<uint32_t*>(codes + row * k + kb * 128 + lane * 4) = packed;
  if (lane == 0) scales[row * kblocks + kb] = scale;
}

struct LinearArgs {
  const uint8_t* w;
  const uint8_t* wscale;
  int64_t n, k;
  const uint8_t* xq;
  const float* xs;
  int64_t rows;
  int splits;
  float* partial;  // [splits, rows, n] when splits > 1
  uint16_t* y;     // [rows, n] when splits == 1
  int control;     // planted control (kernels/control.h), control_none in production
};

__device__ __forceinline__ void load_block(const LinearArgs& a, int64_t r0, int64_t r1, int64_t kb, int t,
                                           uint4 (&blk)[2][2]) {
  for (int c = 0; c < 2; ++c) {
    const int64_t kofs = kb * 128 + c * 64 + t * 16;
    blk[c][0] = load_stream_16(a.w + r0 * a.k + kofs);
    blk[c][1] = load_stream_16(a.w + r1 * a.k + kofs);
  }
}

// A warp owns 16 output features and one K split; each pass covers NT * 8 rows.
template <int NT>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) fp8_linear_kernel(LinearArgs a) {
  const int64_t warp_id = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const int64_t mtiles = a.n / 16;
  if (warp_id >= mtiles * a.splits) return;
  const int64_t mtile = warp_id / a.splits;
  const int split = int(warp_id % a.splits);
  const int64_t kblocks = a.k / 128;
  const int64_t per_split = kblocks / a.splits;
  const int64_t kb0 = split * per_split;
  const int64_t kb1 = kb0 + per_split - (a.control == control_drop_last && split == a.splits - 1 ? 1 : 0);
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t m0 = mtile * 16 + g, m1 = m0 + 8;
  const int64_t wscale_cols = (a.k + 127) / 128;
  const uint8_t* wscale_row = a.wscale + ((mtile * 16) / 128) * wscale_cols;

  for (int64_t base = 0; base < a.rows; base += NT * 8) {
    float acc[NT][4];
    for (int nt = 0; nt < NT; ++nt)
      for (int j = 0; j < 4; ++j) acc[nt][j] = 0.0f;
    uint4 cur[2][2], nxt[2][2];
    load_block(a, m0, m1, kb0, t, cur);
    for (int64_t kb = kb0; kb < kb1; ++kb) {
      if (kb + 1 < kb1) load_block(a, m0, m1, kb + 1, t, nxt);
      float blk[NT][4];
      for (int nt = 0; nt < NT; ++nt)
        for (int j = 0; j < 4; ++j) blk[nt][j] = 0.0f;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int64_t kofs = kb * 128 + c * 64 + t * 16;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          const int64_t row = a.control == control_first_row ? base : base + nt * 8 + g;
          const uint4 b = row < a.rows ? *reinterpret_cast<const uint4*>(a.xq + row * a.k + kofs) : make_uint4(0, 0, 0, 0);
          mma_e4m3_16x8x32(blk[nt], cur[c][0].x, cur[c][1].x, cur[c][0].y, cur[c][1].y, b.x, b.y);
          mma_e4m3_16x8x32(blk[nt], cur[c][0].z, cur[c][1].z, cur[c][0].w, cur[c][1].w, b.z, b.w);
        }
      }
      const float sw = e8m0_value(wscale_row[kb]);
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int64_t row = base + nt * 8 + 2 * t + (j & 1);
          const float sa = row < a.rows ? a.xs[row * kblocks + kb] : 0.0f;
          acc[nt][j] = fmaf(blk[nt][j], sa * sw, acc[nt][j]);
        }
      }
#pragma unroll
      for (int c = 0; c < 2; ++c) cur[c][0] = nxt[c][0], cur[c][1] = nxt[c][1];
    }
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t row = base + nt * 8 + 2 * t + (j & 1);
        const int64_t m = j < 2 ? m0 : m1;
        if (row >= a.rows) continue;
        if (a.splits == 1) {
          a.y[row * a.n + m] = float_to_bf16_bits(acc[nt][j]);
        } else {
          a.partial[(int64_t(split) * a.rows + row) * a.n + m] = acc[nt][j];
        }
      }
    }
  }
}

// Sums the K splits in ascending order and rounds to bf16.
__global__ void sum_splits_kernel(const float* __restrict__ partial, int splits, int64_t count, uint16_t* __restrict__ y) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float acc = partial[i];
  for (int s = 1; s < splits; ++s) acc += partial[int64_t(s) * count + i];
  y[i] = float_to_bf16_bits(acc);
}

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

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
  return align256(size_t(rows * k)) + align256(size_t(rows * (k / 128)) * sizeof(float)) +
         (s > 1 ? align256(size_t(s) * size_t(rows * n) * sizeof(float)) : 0);
}

void act_quant_e4m3(const uint16_t* x, int64_t rows, int64_t k, uint8_t* codes, float* scales, void* stream) {
  const int64_t items = rows * (k / 128);
  if (items == 0) return;
  const int64_t blocks = (items + kWarpsPerBlock - 1) / kWarpsPerBlock;
  act_quant_kernel<<<unsigned(blocks), kWarpsPerBlock * 32, 0, cudaStream_t(stream)>>>(x, rows, k, codes, scales);
  PLUMB_CUDA_LAUNCHED("act_quant");
}

void fp8_linear(const Fp8WeightView& w, const uint16_t* x, int64_t rows, uint16_t* y, void* workspace,
                int rows_per_pass, void* stream) {
  if (rows == 0) return;
  PLUMB_CHECK(w.n % 16 == 0 && w.k % 128 == 0 && w.k / 128 >= 2);
  auto* base = static_cast<uint8_t*>(workspace);
  uint8_t* xq = base;
  auto* xs = reinterpret_cast<float*>(base + align256(size_t(rows * w.k)));
  auto* partial = reinterpret_cast<float*>(base + align256(size_t(rows * w.k)) +
                                           align256(size_t(rows * (w.k / 128)) * sizeof(float)));
  act_quant_e4m3(x, rows, w.k, xq, xs, stream);

  const int control = kernels::planted(kDropLastKBlock)         ? control_drop_last
                      : kernels::planted(kRowsReadPassFirstRow) ? control_first_row
                                                                : control_none;
  LinearArgs a{w.codes, w.scales, w.n, w.k, xq, xs, rows, fp8_linear_splits(w.n, w.k), partial, y, control};
  if (rows_per_pass == 0) rows_per_pass = rows <= 8 ? 8 : rows <= 16 ? 16 : 32;
  const int64_t warps = (w.n / 16) * a.splits;
  const unsigned blocks = unsigned((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
  auto s = cudaStream_t(stream);
  switch (rows_per_pass) {
    case 8: fp8_linear_kernel<1><<<blocks, kWarpsPerBlock * 32, 0, s>>>(a); break;
    case 16: fp8_linear_kernel<2><<<blocks, kWarpsPerBlock * 32, 0, s>>>(a); break;
    case 32: fp8_linear_kernel<4><<<blocks, kWarpsPerBlock * 32, 0, s>>>(a); break;
    default: fail("fp8_linear: rows_per_pass must be 8, 16 or 32, got {}", rows_per_pass);
  }
  PLUMB_CUDA_LAUNCHED("fp8_linear");
  if (a.splits > 1) {
    const int64_t count = rows * w.n;
    sum_splits_kernel<<<unsigned((count + 255) / 256), 256, 0, s>>>(partial, a.splits, count, y);
    PLUMB_CUDA_LAUNCHED("sum_splits");
  }
}

}  // namespace plumb::cuda
