#include <algorithm>

#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/fp4_experts.h"
#include "kernels/cuda/fp8_linear.h"
#include "kernels/cuda/mma_fp8.cuh"

namespace plumb::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kMaxTopK = 16;

const kernels::ControlId kFirstRow = kernels::register_control(
    "fp4_experts_cuda", "rows_read_pass_first_row", "every row of an expert pass reads the pass's first row");
const kernels::ControlId kScalePer64 = kernels::register_control(
    "fp4_experts_cuda", "scale_per_64", "weight scales applied per 64 instead of per 32 along K");
const kernels::ControlId kNoClamp =
    kernels::register_control("fp4_experts_cuda", "no_clamp", "the SwiGLU clamp of gate and up is left out");
const kernels::ControlId kSkipShared =
    kernels::register_control("fp4_experts_cuda", "skip_shared", "the shared expert's output is not added");
enum : int { control_none = 0, control_first_row = 1, control_scale_per_64 = 2 };

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

struct Workspace {
  uint8_t* xq;
  float* xs;
  int32_t* counts;
  int32_t* offsets;   // [experts + 1] by active slot
  int32_t* active;    // expert id of each active slot
  int32_t* n_active;
  int32_t* list;      // pair ids grouped by active slot, ascending
  uint16_t* h;        // [pairs, inter] bf16
  uint8_t* hq;
  float* hs;
  uint16_t* o;        // [pairs, hidden] bf16
};

Workspace carve(void* base, const Fp4ExpertsView& w, int64_t rows, int32_t top_k) {
  const int64_t pairs = rows * top_k;
  auto* p = static_cast<uint8_t*>(base);
  Workspace ws{};
  auto take = [&](size_t bytes) {
    uint8_t* q = p;
    p += align256(bytes);
    return q;
  };
  ws.xq = take(size_t(rows * w.hidden));
  ws.xs = reinterpret_cast<float*>(take(size_t(rows * (w.hidden / 128)) * 4));
  ws.counts = reinterpret_cast<int32_t*>(take(size_t(w.experts) * 4));
  ws.offsets = reinterpret_cast<int32_t*>(take(size_t(w.experts + 1) * 4));
  ws.active = reinterpret_cast<int32_t*>(take(size_t(w.experts) * 4));
  ws.n_active = reinterpret_cast<int32_t*>(take(4));
  ws.list = reinterpret_cast<int32_t*>(take(size_t(pairs) * 4));
  ws.h = reinterpret_cast<uint16_t*>(take(size_t(pairs * w.inter) * 2));
  ws.hq = take(size_t(pairs * w.inter));
  ws.hs = reinterpret_cast<float*>(take(size_t(pairs * (w.inter / 128)) * 4));
  ws.o = reinterpret_cast<uint16_t*>(take(size_t(pairs * w.hidden) * 2));
  return ws;
}

// Groups the launch's (row, k) pairs by expert, in ascending pair order: a fixed function of the routing.
__global__ void build_expert_lists(const int32_t* __restrict__ ids, int64_t pairs, int experts, Workspace ws) {
  __shared__ int32_t slot_of[1024];
  for (int e = threadIdx.x; e < experts; e += blockDim.x) {
    int32_t c = 0;
    for (int64_t p = 0; p < pairs; ++p) c += ids[p] == e;
    ws.counts[e] = c;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t off = 0, n = 0;
    for (int e = 0; e < experts; ++e) {
      slot_of[e] = -1;
      if (ws.counts[e] == 0) continue;
      slot_of[e] = n;
      ws.active[n] = e;
      ws.offsets[n] = off;
      off += ws.counts[e];
      ++n;
    }
    ws.offsets[n] = off;
    *ws.n_active = n;
  }
  __syncthreads();
  for (int e = threadIdx.x; e < experts; e += blockDim.x) {
    if (slot_of[e] < 0) continue;
    int32_t pos = ws.offsets[slot_of[e]];
    for (int64_t p = 0; p < pairs; ++p)
      if (ids[p] == e) ws.list[pos++] = int32_t(p);
  }
}

// Four e2m1 codes (16 bits, low nibble first) -> four e4m3 bytes; exact (every e2m1 value is an e4m3 value).
__device__ __forceinline__ uint32_t e2m1x4_to_e4m3x4(uint32_t v) {
  const uint32_t mag = __byte_perm(0x3C383000u, 0x4C484440u, v & 0x7777u);
  const uint32_t sign = ((v & 0x8u) << 4) | ((v & 0x80u) << 8) | ((v & 0x800u) << 12) | ((v & 0x8000u) << 16);
  return mag | sign;
}

__device__ __forceinline__ uint32_t word_of(const uint4& a, const uint4& b, int i) {
  switch (i) {
    case 0: return a.x;
    case 1: return a.y;
    case 2: return a.z;
    case 3: return a.w;
    case 4: return b.x;
    case 5: return b.y;
    case 6: return b.z;
    default: return b.w;
  }
}

struct MatrixArgs {
  const uint8_t* codes;   // shuffled, for expert 0 (matrix index m uses codes + m * code_stride)
  const uint8_t* scales;
  int64_t code_stride, scale_stride;  // per matrix
  int64_t out_features, k;            // of one matrix
};

// The block sums of one 32-wide K block for one 16-feature tile and up to NT*8 pairs, promoted into acc.
template <int NT>
__device__ __forceinline__ void fp4_block(float (&acc)[NT][4], uint32_t wg, uint32_t wg8, uint32_t sg, uint32_t sg8,
                                          int j, const uint2 (&b)[NT], const float (&sa)[NT][2], int control) {
  const uint32_t a0 = e2m1x4_to_e4m3x4(wg & 0xffffu), a2 = e2m1x4_to_e4m3x4(wg >> 16);
  const uint32_t a1 = e2m1x4_to_e4m3x4(wg8 & 0xffffu), a3 = e2m1x4_to_e4m3x4(wg8 >> 16);
  const int js = control == control_scale_per_64 ? (j & ~1) : j;
  const float sw_g = e8m0_value(uint8_t(sg >> (8 * js))), sw_g8 = e8m0_value(uint8_t(sg8 >> (8 * js)));
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    mma_e4m3_16x8x32(d, a0, a1, a2, a3, b[nt].x, b[nt].y);
#pragma unroll
    for (int jj = 0; jj < 4; ++jj) acc[nt][jj] = fmaf(d[jj] * sa[nt][jj & 1], jj < 2 ? sw_g : sw_g8, acc[nt][jj]);
  }
}

struct PassArgs {
  Workspace ws;
  MatrixArgs m1, m3;   // gate/up: w1 and w3 (m3 unused for down)
  int64_t tiles;       // feature tiles per matrix
  const uint8_t* xq;   // activations of the pass's B rows
  const float* xs;
  int32_t top_k;
  bool by_row;         // B row of a pair: its token row (gate/up) or the pair itself (down)
  const float* weights;
  float limit;
  uint16_t* out;       // [pairs or rows, out_features]
  int control;
};

// Gate/up (TWO = true: w1 and w3 then SwiGLU) or down (TWO = false) for one (active expert, feature tile).
template <int NT, bool TWO>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) experts_pass_kernel(PassArgs a) {
  const int64_t warp_id = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const int64_t slot = warp_id / a.tiles, tile = warp_id % a.tiles;
  if (slot >= *a.ws.n_active) return;
  const int32_t expert = a.ws.active[slot];
  const int32_t begin = a.ws.offsets[slot], end = a.ws.offsets[slot + 1];
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t supers = a.m1.k / 128;
  const int64_t mat1 = TWO ? int64_t(expert) * 2 : expert;
  const uint8_t* c1 = a.m1.codes + mat1 * a.m1.code_stride + tile * supers * 1024 + lane * 32;
  const uint8_t* s1 = a.m1.scales + mat1 * a.m1.scale_stride + tile * supers * 64;
  const uint8_t* c3 = TWO ? a.m3.codes + (mat1 + 1) * a.m3.code_stride + tile * supers * 1024 + lane * 32 : nullptr;
  const uint8_t* s3 = TWO ? a.m3.scales + (mat1 + 1) * a.m3.scale_stride + tile * supers * 64 : nullptr;

  for (int32_t pbase = begin; pbase < end; pbase += NT * 8) {
    int64_t brow[NT], crow[NT][2];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      const int32_t q = a.control == control_first_row ? pbase : pbase + nt * 8 + g;
      const int32_t p = q < end ? a.ws.list[q] : -1;
      brow[nt] = p < 0 ? -1 : a.by_row ? p / a.top_k : p;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int32_t qc = pbase + nt * 8 + 2 * t + c;
        const int32_t pc = qc < end ? a.ws.list[qc] : -1;
        crow[nt][c] = pc < 0 ? -1 : a.by_row ? pc / a.top_k : pc;
      }
    }
    float acc1[NT][4], acc3[NT][4];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) acc1[nt][jj] = acc3[nt][jj] = 0.f;

    for (int64_t sb = 0; sb < supers; ++sb) {
      const uint4 w1a = load_stream_16(c1 + sb * 1024), w1b = load_stream_16(c1 + sb * 1024 + 16);
      const uint32_t s1g = *reinterpret_cast<const uint32_t*>(s1 + sb * 64 + g * 4);
      const uint32_t s1g8 = *reinterpret_cast<const uint32_t*>(s1 + sb * 64 + (g + 8) * 4);
      uint4 w3a{}, w3b{};
      uint32_t s3g = 0, s3g8 = 0;
      if (TWO) {
        w3a = load_stream_16(c3 + sb * 1024), w3b = load_stream_16(c3 + sb * 1024 + 16);
        s3g = *reinterpret_cast<const uint32_t*>(s3 + sb * 64 + g * 4);
        s3g8 = *reinterpret_cast<const uint32_t*>(s3 + sb * 64 + (g + 8) * 4);
      }
      float sa[NT][2];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int c = 0; c < 2; ++c) sa[nt][c] = crow[nt][c] < 0 ? 0.f : a.xs[crow[nt][c] * supers + sb];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        uint2 b[NT];
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
          b[nt] = brow[nt] < 0 ? make_uint2(0, 0)
                              : *reinterpret_cast<const uint2*>(a.xq + brow[nt] * a.m1.k + sb * 128 + j * 32 + t * 8);
        fp4_block<NT>(acc1, word_of(w1a, w1b, 2 * j), word_of(w1a, w1b, 2 * j + 1), s1g, s1g8, j, b, sa, a.control);
        if (TWO)
          fp4_block<NT>(acc3, word_of(w3a, w3b, 2 * j), word_of(w3a, w3b, 2 * j + 1), s3g, s3g8, j, b, sa, a.control);
      }
    }
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        const int32_t q = pbase + nt * 8 + 2 * t + (jj & 1);
        if (q >= end) continue;
        const int32_t pair = a.ws.list[q];
        const int64_t feature = tile * 16 + (jj < 2 ? g : g + 8);
        float v;
        if (TWO) {
          float gate = bf16_bits_to_float(float_to_bf16_bits(acc1[nt][jj]));
          float up = bf16_bits_to_float(float_to_bf16_bits(acc3[nt][jj]));
          if (a.limit > 0) {
            gate = fminf(gate, a.limit);
            up = fminf(fmaxf(up, -a.limit), a.limit);
          }
          v = gate / (1.0f + expf(-gate)) * up * a.weights[pair];
        } else {
          v = acc1[nt][jj];
        }
        a.out[int64_t(pair) * a.m1.out_features + feature] = float_to_bf16_bits(v);
      }
    }
  }
}

// y[row] = sum of the row's expert outputs in ascending expert id (fp32), then the shared output; bf16.
__global__ void combine_kernel(const uint16_t* __restrict__ o, const int32_t* __restrict__ ids, int32_t top_k,
                               const uint16_t* __restrict__ shared, int64_t rows, int64_t hidden, uint16_t* __restrict__ y) {
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
  y[i] = float_to_bf16_bits(acc);
}

template <bool TWO>
void launch_pass(const PassArgs& a, int64_t max_active, int rows_per_pass, cudaStream_t s) {
  const int64_t warps = max_active * a.tiles;
  const unsigned blocks = unsigned((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
  switch (rows_per_pass) {
    case 8: experts_pass_kernel<1, TWO><<<blocks, kWarpsPerBlock * 32, 0, s>>>(a); break;
    case 16: experts_pass_kernel<2, TWO><<<blocks, kWarpsPerBlock * 32, 0, s>>>(a); break;
    case 32: experts_pass_kernel<4, TWO><<<blocks, kWarpsPerBlock * 32, 0, s>>>(a); break;
    default: fail("fp4_experts: rows_per_pass must be 8, 16 or 32, got {}", rows_per_pass);
  }
  PLUMB_CUDA_LAUNCHED("experts_pass");
}

}  // namespace

size_t fp4_experts_workspace_bytes(const Fp4ExpertsView& w, int64_t rows, int32_t top_k) {
  const int64_t pairs = rows * top_k;
  return align256(size_t(rows * w.hidden)) + align256(size_t(rows * (w.hidden / 128)) * 4) +
         3 * align256(size_t(w.experts + 1) * 4) + align256(4) + align256(size_t(pairs) * 4) +
         align256(size_t(pairs * w.inter) * 2) + align256(size_t(pairs * w.inter)) +
         align256(size_t(pairs * (w.inter / 128)) * 4) + align256(size_t(pairs * w.hidden) * 2);
}

void fp4_experts(const Fp4ExpertsView& w, const uint16_t* x, int64_t rows, const ExpertRoutingView& routing,
                 const uint16_t* shared, uint16_t* y, void* workspace, int rows_per_pass, void* stream) {
  if (rows == 0) return;
  PLUMB_CHECK(routing.top_k >= 1 && routing.top_k <= kMaxTopK && w.experts <= 1024);
  PLUMB_CHECK(w.hidden % 128 == 0 && w.inter % 128 == 0);
  auto s = cudaStream_t(stream);
  const Workspace ws = carve(workspace, w, rows, routing.top_k);
  const int64_t pairs = rows * routing.top_k;
  if (rows_per_pass == 0) rows_per_pass = rows <= 8 ? 8 : rows <= 16 ? 16 : 32;
  const int64_t max_active = std::min<int64_t>(w.experts, pairs);
  const int control = kernels::planted(kFirstRow) ? control_first_row
                      : kernels::planted(kScalePer64) ? control_scale_per_64
                                                      : control_none;
  const float limit = kernels::planted(kNoClamp) ? 0.0f : w.swiglu_limit;
  if (kernels::planted(kSkipShared)) shared = nullptr;

  act_quant_e4m3(x, rows, w.hidden, ws.xq, ws.xs, stream);
  build_expert_lists<<<1, 256, 0, s>>>(routing.ids, pairs, int(w.experts), ws);
  PLUMB_CUDA_LAUNCHED("build_expert_lists");

  const size_t code13 = fp4_shuffled_code_bytes(w.inter, w.hidden), scale13 = fp4_shuffled_scale_bytes(w.inter, w.hidden);
  PassArgs up{};
  up.ws = ws;
  up.m1 = {w.w13_codes, w.w13_scales, int64_t(code13), int64_t(scale13), w.inter, w.hidden};
  up.m3 = up.m1;
  up.tiles = w.inter / 16;
  up.xq = ws.xq;
  up.xs = ws.xs;
  up.top_k = routing.top_k;
  up.by_row = true;
  up.weights = routing.weights;
  up.limit = limit;
  up.out = ws.h;
  up.control = control;
  launch_pass<true>(up, max_active, rows_per_pass, s);

  act_quant_e4m3(ws.h, pairs, w.inter, ws.hq, ws.hs, stream);
  PassArgs down{};
  down.ws = ws;
  down.m1 = {w.w2_codes, w.w2_scales, int64_t(fp4_shuffled_code_bytes(w.hidden, w.inter)),
             int64_t(fp4_shuffled_scale_bytes(w.hidden, w.inter)), w.hidden, w.inter};
  down.tiles = w.hidden / 16;
  down.xq = ws.hq;
  down.xs = ws.hs;
  down.top_k = routing.top_k;
  down.by_row = false;
  down.out = ws.o;
  down.control = control;
  launch_pass<false>(down, max_active, rows_per_pass, s);

  const int64_t count = rows * w.hidden;
  combine_kernel<<<unsigned((count + 255) / 256), 256, 0, s>>>(ws.o, routing.ids, routing.top_k, shared, rows, w.hidden, y);
  PLUMB_CUDA_LAUNCHED("combine");
}

}  // namespace plumb::cuda
