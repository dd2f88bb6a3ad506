// The experts launch's kernels around its two passes (fp4_experts.cu runs the passes): the pairs grouped by expert
// with the input's quantization in one launch, the combine of each row's outputs, and the per-expert weight tables.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/fp4_experts_glue.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/mma_fp8.cuh"

namespace plumb::cuda {
namespace experts_detail {
namespace {

// Groups the launch's (row, k) pairs by expert, in ascending pair order: a fixed function of the routing. One
// thread per expert: counts in shared memory, a block-wide scan numbers the active experts and their offsets, then
// each active expert's thread lists its pairs in order.
__device__ __forceinline__ void build_expert_lists(const int32_t* __restrict__ ids, int64_t pairs, int experts,
                                                   const Workspace& ws) {
  __shared__ int32_t count[kListThreads], warp_pairs[32], warp_active[32];
  const int e = int(threadIdx.x), lane = e % 32, warp = e / 32;
  count[e] = 0;
  __syncthreads();
  for (int64_t p = e; p < pairs; p += blockDim.x) {
    const int32_t id = ids[p];
    if (id >= 0 && id < experts) atomicAdd(&count[id], 1);
  }
  __syncthreads();
  const int32_t mine = e < experts ? count[e] : 0, active = mine > 0 ? 1 : 0;
  int32_t pairs_incl = mine, active_incl = active;  // inclusive scans within the warp
  for (int o = 1; o < 32; o <<= 1) {
    const int32_t a = __shfl_up_sync(0xffffffffu, pairs_incl, o), b = __shfl_up_sync(0xffffffffu, active_incl, o);
    if (lane >= o) pairs_incl += a, active_incl += b;
  }
  if (lane == 31) warp_pairs[warp] = pairs_incl, warp_active[warp] = active_incl;
  __syncthreads();
  if (warp == 0) {  // exclusive scan of the warps' totals
    int32_t p = warp_pairs[lane], a = warp_active[lane];
    for (int o = 1; o < 32; o <<= 1) {
      const int32_t x = __shfl_up_sync(0xffffffffu, p, o), y = __shfl_up_sync(0xffffffffu, a, o);
      if (lane >= o) p += x, a += y;
    }
    warp_pairs[lane] = p - warp_pairs[lane];
    warp_active[lane] = a - warp_active[lane];
    if (lane == 31) {
      *ws.n_active = a;
      ws.offsets[a] = p;
    }
  }
  __syncthreads();
  if (!active) return;
  const int32_t slot = warp_active[warp] + active_incl - 1;
  int32_t pos = warp_pairs[warp] + pairs_incl - mine;
  ws.offsets[slot] = pos;
  ws.active[slot] = e;
  for (int64_t p = 0; p < pairs; ++p)
    if (ids[p] == e) ws.list[pos++] = int32_t(p);
}


// Block 0 groups the pairs by expert; every other block quantizes input rows for the up pass, a warp per 128-wide
// K block, with act_quant's own code. One launch where there were two (the list and the quantization).
__global__ void __launch_bounds__(kListThreads) prepare_experts(const int32_t* __restrict__ ids, int64_t pairs,
                                                                int experts, Workspace ws, ExpertsInput in) {
  kernel_prologue();
  if (blockIdx.x == 0) {
    if (threadIdx.x < kFetchCounters) ws.fetched[threadIdx.x] = 0u;
    build_expert_lists(ids, pairs, experts, ws);
    return;
  }
  const int64_t kblocks = in.hidden / 128;
  const int64_t item = int64_t(blockIdx.x - 1) * (kListThreads / 32) + threadIdx.x / 32;
  if (item >= in.rows * kblocks) return;
  const int lane = threadIdx.x % 32;
  const int64_t row = item / kblocks, kb = item % kblocks;
  const int64_t at = row * in.stride + kb * 128 + lane * 4;
  float v[4];
  load_activations_4(in.x, in.f32, at, v);
  uint32_t packed;
  const float scale = quantize_block_128(v, packed);
  *reinterpret_cast<uint32_t*>(ws.xq + row * in.hidden + kb * 128 + lane * 4) = packed;
  if (lane == 0) ws.xs[row * kblocks + kb] = scale;
}

// y[row] = sum of the row's expert outputs in ascending expert id (fp32), then the shared output; bf16 or the
// float32 accumulator.
__global__ void combine_kernel(const uint16_t* __restrict__ o, const int32_t* __restrict__ ids, int32_t top_k,
                               const uint16_t* __restrict__ shared, int64_t rows, int64_t hidden, void* y, bool y_f32,
                               bool round_bf16, const float* __restrict__ addend, int64_t addend_stride) {
  kernel_prologue();
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * hidden) return;
  const int64_t row = i / hidden, d = i % hidden;
  int32_t order[kMaxTopK];
  for (int k = 0; k < top_k; ++k) order[k] = k;
  for (int k = 1; k < top_k; ++k)  // insertion sort by (expert id, k)
    for (int m = k; m > 0 && ids[row * top_k + order[m - 1]] > ids[row * top_k + order[m]]; --m) {
      const int32_t tmp = order[m];
      order[m] = order[m - 1];
      order[m - 1] = tmp;
    }
  float acc = 0.f;
  for (int k = 0; k < top_k; ++k) acc += bf16_bits_to_float(o[(row * top_k + order[k]) * hidden + d]);
  if (shared) acc += bf16_bits_to_float(shared[i]);
  if (addend) {  // Backend::add's sum of the unrounded routed output and the addend, rounded to bf16
    static_cast<float*>(y)[i] = bf16_bits_to_float(float_to_bf16_bits(acc + addend[row * addend_stride + d]));
  } else if (y_f32) {
    static_cast<float*>(y)[i] = round_bf16 ? bf16_bits_to_float(float_to_bf16_bits(acc)) : acc;
  } else {
    static_cast<uint16_t*>(y)[i] = float_to_bf16_bits(acc);
  }
}

}  // namespace

void launch_prepare_experts(const int32_t* ids, int64_t pairs, int experts, const Workspace& ws,
                            const ExpertsInput& in, int64_t quant_blocks, Stream stream) {
  launch(stream, "prepare_experts", prepare_experts, dim3(unsigned(1 + quant_blocks)), dim3(kListThreads), 0, ids,
         pairs, experts, ws, in);
}

void launch_combine(const uint16_t* o, const int32_t* ids, int32_t top_k, const uint16_t* shared, int64_t rows,
                    int64_t hidden, const ExpertsIo& io, Stream stream) {
  const int64_t count = rows * hidden;
  launch(stream, "combine", combine_kernel, dim3(unsigned((count + 255) / 256)), dim3(256), 0, o, ids, top_k, shared,
         rows, hidden, io.y, io.y_f32, io.round_bf16, io.addend, io.addend_stride);
}

}  // namespace experts_detail

namespace {

__global__ void fill_tables(const uint8_t* w13, const uint8_t* s13, const uint8_t* w2, const uint8_t* s2,
                            int64_t experts, int64_t c13, int64_t sc13, int64_t c2, int64_t sc2, const uint8_t** t) {
  const int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= experts) return;
  t[0 * experts + e] = w13 + (2 * e) * c13;
  t[1 * experts + e] = s13 + (2 * e) * sc13;
  t[2 * experts + e] = w13 + (2 * e + 1) * c13;
  t[3 * experts + e] = s13 + (2 * e + 1) * sc13;
  t[4 * experts + e] = w2 + e * c2;
  t[5 * experts + e] = s2 + e * sc2;
}

}  // namespace

void* make_fp4_expert_tables(const uint8_t* w13_codes, const uint8_t* w13_scales, const uint8_t* w2_codes,
                             const uint8_t* w2_scales, int64_t experts, int64_t hidden, int64_t inter,
                             Fp4ExpertsView& view) {
  const uint8_t** t = nullptr;
  PLUMB_CUDA_CHECK(cudaMalloc(&t, size_t(6 * experts) * sizeof(void*)));
  fill_tables<<<unsigned((experts + 127) / 128), 128>>>(
      w13_codes, w13_scales, w2_codes, w2_scales, experts, int64_t(fp4_shuffled_code_bytes(inter, hidden)),
      int64_t(fp4_shuffled_scale_bytes(inter, hidden)), int64_t(fp4_shuffled_code_bytes(hidden, inter)),
      int64_t(fp4_shuffled_scale_bytes(hidden, inter)), t);
  PLUMB_CUDA_LAUNCHED("fill_tables");
  view.w1_codes = t + 0 * experts;
  view.w1_scales = t + 1 * experts;
  view.w3_codes = t + 2 * experts;
  view.w3_scales = t + 3 * experts;
  view.w2_codes = t + 4 * experts;
  view.w2_scales = t + 5 * experts;
  view.experts = experts;
  view.hidden = hidden;
  view.inter = inter;
  return t;
}

void free_fp4_expert_tables(void* tables) { cudaFree(tables); }

}  // namespace plumb::cuda
