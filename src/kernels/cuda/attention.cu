// Sparse attention with sinks on the CUDA backend (dsv4-forward.md section 7), in two launches. One block per
// (row, head) walked the softmax blocks one after another, each with its own memory round trips and barriers: 75 us
// for a CSA row (640 keys) at one row on an H200, on 64 multiprocessors. Here the work spreads over many more
// blocks, and a key is read once for a group of heads:
//   attention_logits: a block per (row, softmax block of entries, group of 4, 8 or 16 heads): the group's logits
//     for the block's entries and each head's maximum and NaN flag over the block's present keys;
//   attention_pv: a block per (row, group of kPvHeads heads, kPvChannels channels): for each softmax block in
//     order, each head's running maximum, alpha and probabilities, P.V per channel, the denominator per head.
// Each output's arithmetic is the CPU backend's online softmax, key order and rounding, step for step: a logit is
// lane l's fma chain over channels l + 32k (k ascending), the xor tree, then the scale; a block's maximum is exact
// in any order; each channel's sum is scaled by alpha, then fma'd over the block's present keys in order; the
// denominator is scaled by alpha, then summed over the block's entries in order; empty blocks change nothing.
// Backend::attention_rope: the P.V's epilogue also rotates the output's rope pairs back, as the rope kernel would.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "base/env_switch.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/device.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/ops_common.cuh"

namespace plumb::cuda::ops {
namespace {

constexpr int kMaxAttentionBlock = 256;  // entries a softmax block may hold
constexpr int kMaxLaneValues = 16;       // channels a lane holds: head_dim <= 512
constexpr int kLogitHeads = 4;           // heads whose partials a warp's shared-memory trees take at once
constexpr int kLogitThreads = 256;
constexpr int kKeysPerWarp = 4;          // keys a warp loads together before their dots
constexpr int kLogitBlocksY = 16;        // logits blocks a row's softmax blocks are spread over (each loops on)
constexpr int kPvHeads = 4;              // heads a P.V block serves, two a thread (8, four a thread: lost, below)
constexpr int kPvChannels = 128;         // channels a P.V block serves, lane = channel (128-byte key reads)
constexpr int kPvThreads = kPvChannels * kPvHeads / 2;  // plus one warp for the denominators
constexpr int kChunkEntries = 512;       // entries whose probabilities a P.V block holds at once
constexpr int kMaxChunkBlocks = 64;
constexpr int kLogitEntries = 2;         // entries whose logits (every head's) a P.V thread loads together
constexpr int64_t kScratchFloats = int64_t(1) << 26;  // 256 MB: longer launches go in row ranges

// Where the keys are and where the logits go.
struct Keys {
  View ring, compressed, selected;
  bool has_selected;
  const int64_t* token_rows;  // (slot, position) per row
};
struct Scratch {
  float* logits;       // [rows][heads][stride]
  float* block_max;    // [rows][heads][blocks_stride]
  int32_t* block_nan;  // [rows][heads][blocks_stride]
  int64_t stride, blocks_stride;
};

// Entry e of a row: window positions oldest to newest (padded to `window`), then compressed rows (selected ones
// when the indexer picked them); null where there is none.
struct RowKeys {
  int64_t row, slot, position, first, total;
  __device__ RowKeys(const AttentionArgs& p, const Keys& k, int64_t r) : row(r) {
    slot = k.token_rows[2 * r];
    position = k.token_rows[2 * r + 1];
    first = position - p.window + 1 > 0 ? position - p.window + 1 : 0;
    total = attention_entries(p, k.has_selected, k.selected.cols, position);
  }
  __device__ const float* key(const AttentionArgs& p, const Keys& k, int64_t e) const {
    if (e < p.window) {
      const int64_t pos = first + e;
      return pos <= position ? row_ptr<const float>(k.ring, slot * p.ring_rows + pos % p.ring_rows) : nullptr;
    }
    const int64_t i = e - p.window;
    const int64_t j = k.has_selected ? int64_t(row_ptr<const int32_t>(k.selected, row)[i]) : i;
    if (j < 0 && p.padding_reads_row_0) return row_ptr<const float>(k.compressed, slot * p.compressed_rows_per_slot);
    return j < 0 ? nullptr : row_ptr<const float>(k.compressed, slot * p.compressed_rows_per_slot + j);
  }
};

// A warp's kDots = kLogitHeads x kKeysPerWarp lane partials, for kSmemTree: dot d's partial of lane l at
// d * kTreeStride + 16 (l % 2) + l / 2, so each lane writes one bank and the two lanes of a dot read their 16 as four
// LDS.128 without conflicts.
constexpr int kDots = kLogitHeads * kKeysPerWarp;
constexpr int kTreeStride = 36;

// warp_sum's xor tree over one dot's 32 lane partials, with two lanes a dot: lane 2d + q adds the partials of lanes
// q, q + 2, ..., q + 30 as the tree's levels 16, 8, 4 and 2 do (each add is one the tree makes, in its pairing), then
// the last level adds the two halves. Every lane's result is the tree's value, bit for bit.
__device__ __forceinline__ float tree_of_pair(const float* partials, int q) {
  float v[16];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float4 f = *reinterpret_cast<const float4*>(partials + 16 * q + 4 * i);
    v[4 * i] = f.x, v[4 * i + 1] = f.y, v[4 * i + 2] = f.z, v[4 * i + 3] = f.w;
  }
  // v[m] is lane 2m + q's partial; the tree pairs lane i with i ^ 16, ^ 8, ^ 4, ^ 2: here m with m ^ 8, ^ 4, ^ 2, ^ 1
#pragma unroll
  for (int o = 8; o > 0; o >>= 1)
#pragma unroll
    for (int m = 0; m < o; ++m) v[m] = v[m] + v[m + o];
  return v[0] + __shfl_xor_sync(0xffffffffu, v[0], 1);
}

// Dynamic shared memory of a logits block of kHeads heads: each head's query, then its logits of a softmax block.
size_t logits_shared_bytes(const AttentionArgs& p, int heads) {
  return size_t(heads) * size_t(p.head_dim + p.block) * sizeof(float);
}

// kFull: head_dim is 32 * kMaxLaneValues, so no lane's channel needs a bounds check. kSmemTree: the lanes' partials
// of a warp's keys and heads meet in shared memory (tree_of_pair) instead of warp_sum's shuffles, the same sums.
// kHeads: heads a block serves; its keys are read once for all of them, and each dot is the same whichever kHeads.
template <bool kFull, bool kSmemTree, int kHeads>
__global__ void __launch_bounds__(kLogitThreads) attention_logits_kernel(AttentionArgs p, View q, Keys keys, Scratch s) {
  static_assert(kHeads % kLogitHeads == 0 && (kSmemTree || kHeads == kLogitHeads));
  kernel_prologue();
  extern __shared__ __align__(16) float logits_shared[];  // logits_shared_bytes
  __shared__ const float* key_ptr[kMaxAttentionBlock];
  __shared__ __align__(16) float tree[kSmemTree ? kLogitThreads / 32 : 1][kDots * kTreeStride];
  const RowKeys rk(p, keys, blockIdx.x);
  const int64_t h0 = int64_t(blockIdx.z) * kHeads;
  const int heads = int(std::min<int64_t>(p.heads - h0, kHeads)), d = int(p.head_dim), lb = int(p.block);
  float* query = logits_shared;            // [heads][d]
  float* logit = logits_shared + kHeads * d;  // [heads][block]
  const int warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32), warps = kLogitThreads / 32;
  auto in_range = [&](int k) { return kFull || lane + 32 * k < d; };
  if (int64_t(blockIdx.y) * p.block >= rk.total) return;
  const float* q_row = row_ptr<const float>(q, rk.row) + h0 * d;
  loads_then_stores<8, float>(
      heads * d, [&](int i) { return q_row[i]; }, [&](int i, float v) { query[i] = v; });
  for (int64_t b = blockIdx.y; b * p.block < rk.total; b += gridDim.y) {
    const int64_t b0 = b * p.block;
    const int n = int(std::min<int64_t>(p.block, rk.total - b0));
    __syncthreads();  // the query is in; the previous block's keys and logits are used up
    for (int v = int(threadIdx.x); v < n; v += blockDim.x) key_ptr[v] = rk.key(p, keys, b0 + v);
    __syncthreads();
    for (int v0 = warp; v0 < n; v0 += kKeysPerWarp * warps) {  // a warp's keys loaded together, then their dots
      float kv[kKeysPerWarp][kMaxLaneValues];
      bool present[kKeysPerWarp];
#pragma unroll
      for (int j = 0; j < kKeysPerWarp; ++j) {
        const int v = v0 + j * warps;
        const float* key = v < n ? key_ptr[v] : nullptr;
        present[j] = key != nullptr;
#pragma unroll
        for (int k = 0; k < kMaxLaneValues; ++k) kv[j][k] = key && in_range(k) ? key[lane + 32 * k] : 0.0f;
      }
      auto load_query = [&](int h, float (&qv)[kMaxLaneValues]) {  // head h's channels of this lane
#pragma unroll
        for (int k = 0; k < kMaxLaneValues; ++k) qv[k] = in_range(k) ? query[h * d + lane + 32 * k] : 0.0f;
      };
      auto lane_dot = [&](const float (&qv)[kMaxLaneValues], int j) {  // this lane's partial of key j's dot
        float dot = 0.0f;
        if (present[j])
#pragma unroll
          for (int k = 0; k < kMaxLaneValues; ++k)
            if (in_range(k)) dot = __fmaf_rn(qv[k], kv[j][k], dot);
        return dot;
      };
      if constexpr (kSmemTree) {  // kLogitHeads heads' partials at a time, then one tree a dot
        for (int g = 0; g < heads; g += kLogitHeads) {
#pragma unroll
          for (int h = 0; h < kLogitHeads; ++h) {
            if (g + h >= heads) break;
            float qv[kMaxLaneValues];
            load_query(g + h, qv);
#pragma unroll
            for (int j = 0; j < kKeysPerWarp; ++j)
              tree[warp][(h * kKeysPerWarp + j) * kTreeStride + 16 * (lane % 2) + lane / 2] = lane_dot(qv, j);
          }
          __syncwarp();
          const int t = lane / 2, h = g + t / kKeysPerWarp, v = v0 + (t % kKeysPerWarp) * warps;
          const float sum = tree_of_pair(&tree[warp][t * kTreeStride], lane % 2);
          if (lane % 2 == 0 && h < heads && v < n) logit[h * lb + v] = key_ptr[v] ? sum * p.softmax_scale : -INFINITY;
          __syncwarp();  // the partials are read before the next heads' or keys' overwrite them
        }
      } else {
        for (int h = 0; h < heads; ++h) {
          float qv[kMaxLaneValues], dot[kKeysPerWarp];
          load_query(h, qv);
#pragma unroll
          for (int j = 0; j < kKeysPerWarp; ++j) dot[j] = lane_dot(qv, j);
#pragma unroll
          for (int o = 16; o > 0; o >>= 1)  // warp_sum's xor tree, the keys' trees interleaved
#pragma unroll
            for (int j = 0; j < kKeysPerWarp; ++j) dot[j] += __shfl_xor_sync(0xffffffffu, dot[j], o);
#pragma unroll
          for (int j = 0; j < kKeysPerWarp; ++j) {
            const int v = v0 + j * warps;
            if (lane == 0 && v < n) logit[h * lb + v] = present[j] ? dot[j] * p.softmax_scale : -INFINITY;
          }
        }
      }
    }
    __syncthreads();
    const int64_t head_row = blockIdx.x * p.heads + h0;
    for (int i = int(threadIdx.x); i < heads * n; i += blockDim.x)
      s.logits[(head_row + i / n) * s.stride + b0 + i % n] = logit[(i / n) * lb + i % n];
    for (int h = warp; h < heads; h += warps) {  // the block's maximum over present keys; fmaxf drops NaN, so NaN is
      float m = -INFINITY;                       // flagged apart
      bool nan_logit = false;
      for (int v = lane; v < n; v += 32)
        if (key_ptr[v]) {
          m = fmaxf(m, logit[h * lb + v]);
          nan_logit = nan_logit || isnan(logit[h * lb + v]);
        }
      for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
      nan_logit = __any_sync(0xffffffffu, nan_logit);
      if (lane == 0) {
        s.block_max[(head_row + h) * s.blocks_stride + b] = m;
        s.block_nan[(head_row + h) * s.blocks_stride + b] = nan_logit ? 1 : 0;
      }
    }
  }
}

// An absent key (or an entry past the block) enters the P.V sums as fma(-0, +0, acc), which is acc exactly
// whatever acc is (x + -0 = x, for -0 too): the same sums as skipping it, without a branch per key. Its channels
// are read from a row of zeros, so every key's load goes out unconditionally.
__device__ const float kZeroKey[32 * kMaxLaneValues] = {};

// kPvBatch: keys a P.V thread loads before their sums. 64 keeps more loads in flight (about 140 registers, one
// block a multiprocessor): a CSA row's P.V 45 -> 27 us (H200, session 9 call 5). 32 is held to 75 registers so
// that three blocks share a multiprocessor, as before, once a launch has more blocks than multiprocessors: with 64
// there, the 16-row round went 63.5 -> 66.5 ms.
// Both kernels take a chunk's logits and exps by entry: an index per entry instead of two divisions per value, and
// one division for an entry's heads (the 32-key kernel at 16 rows: 110 -> 102 us a CSA launch, session 17 call 4;
// the one-wave kernel at one row: 26.5 -> 24.5 us under ncu, and the round -0.4% against main, six of eight
// alternations faster than without, session 18 call 1; H200). kLeanKeys (the 32-key kernel only): the chunk's keys
// two loaded together; in the one-wave kernel, with the rest, it took 26.5 -> 37.7 us (108 registers instead of
// 143, session 17 call 3). Lost in session 25 (H200, docs/receipts/2026-12-02-session25-*): blocks of 8 heads, four
// a thread, at 16 rows (a CSA launch 60.9 -> 66.3 us); in the one-wave kernel a per-thread cp.async ring of 32-key
// stages in shared memory (a CSA row 16.0 -> 25.9 us, the round +5.7% at one row): a 4-byte copy a key and then a
// shared load is more LSU work than this kernel's register batches, as session 17's block-wide tiles were.
template <int kPvBatch>
__global__ void __launch_bounds__(kPvThreads + 32, kPvBatch == 32 ? 3 : 0)
    attention_pv_kernel(AttentionArgs p, Keys keys, WeightRef sinks, Scratch s, View out) {
  constexpr bool kLeanKeys = kPvBatch == 32;
  // attention_rope: the block's output pairs' angles, from the row's staged position, before the wait, into shared
  // memory (in registers they were live across the whole kernel: its P.V took 26 -> 30 us at one row, H200).
  __shared__ float2 out_angle[kPvChannels / 2];
  const int64_t c = int64_t(blockIdx.z) * kPvChannels + threadIdx.x % kPvChannels;
  auto rotates = [&] { return p.out_rope_freqs && c >= p.head_dim - p.out_rope_dims && c < p.head_dim; };
  if (threadIdx.x < kPvChannels && threadIdx.x % 2 == 0 && rotates())
    out_angle[threadIdx.x / 2] = rope_cos_sin(float(keys.token_rows[2 * blockIdx.x + 1]),
                                              p.out_rope_freqs[(c - (p.head_dim - p.out_rope_dims)) / 2]);
  kernel_prologue();
  __shared__ float prob[kChunkEntries][kPvHeads];  // bf16-rounded; -0 for absent keys
  __shared__ float expv[kChunkEntries][kPvHeads];  // the logits, then unrounded probabilities (+0 if absent)
  __shared__ const float* key_ptr[kChunkEntries];  // kZeroKey for absent keys
  __shared__ bool present[kChunkEntries];
  __shared__ float alpha[kMaxChunkBlocks][kPvHeads], new_max[kMaxChunkBlocks][kPvHeads];
  __shared__ float block_max[kMaxChunkBlocks][kPvHeads], previous_max[kMaxChunkBlocks][kPvHeads];
  __shared__ bool valid[kMaxChunkBlocks][kPvHeads], block_nan[kMaxChunkBlocks][kPvHeads];
  __shared__ float denominators[kPvHeads];
  const RowKeys rk(p, keys, blockIdx.x);
  const int64_t h0 = int64_t(blockIdx.y) * kPvHeads, d = p.head_dim;
  const int heads = int(std::min<int64_t>(p.heads - h0, kPvHeads)), lane = int(threadIdx.x % 32);
  const int64_t head_row = blockIdx.x * p.heads + h0;
  const int64_t blocks = (rk.total + p.block - 1) / p.block;
  const int block = int(p.block);
  const int chunk_blocks = std::max(1, std::min(int(kMaxChunkBlocks), kChunkEntries / block));
  // P.V threads: channel c of local heads ha and ha + 1; the last warp: lane h keeps head h's max and denominator.
  const bool pv_thread = threadIdx.x < kPvThreads;
  const int ha = 2 * int(threadIdx.x / kPvChannels);
  const bool own_a = pv_thread && ha < heads && c < d, own_b = own_a && ha + 1 < heads;
  const bool softmax_lane = !pv_thread && lane < heads;
  float acc_a = 0.0f, acc_b = 0.0f, running_max = -INFINITY, denominator = 0.0f;
  for (int64_t cb = 0; cb < blocks; cb += chunk_blocks) {
    const int nb = int(std::min<int64_t>(chunk_blocks, blocks - cb));
    const int64_t e0 = cb * block;
    const int ne = int(std::min<int64_t>(int64_t(nb) * block, rk.total - e0));
    auto store_key = [&](int v, const float* key) {
      present[v] = key != nullptr;
      key_ptr[v] = key ? key : kZeroKey;
    };
    if constexpr (kLeanKeys) {  // the chunk's keys: a selected row's index each, two loaded together
      loads_then_stores<2, const float*>(ne, [&](int v) { return rk.key(p, keys, e0 + v); }, store_key);
    } else {
      for (int v = int(threadIdx.x); v < ne; v += blockDim.x) store_key(v, rk.key(p, keys, e0 + v));
    }
    for (int i = int(threadIdx.x); i < nb * heads; i += blockDim.x) {  // the chunk's block maxima, loaded together
      const int64_t at = (head_row + i % heads) * s.blocks_stride + cb + i / heads;
      block_max[i / heads][i % heads] = s.block_max[at];
      block_nan[i / heads][i % heads] = s.block_nan[at] != 0;
    }
    // The chunk's logits, parked in expv until their probabilities replace them: a thread's entries, every head of
    // each, all loaded before any is stored.
    for (int v0 = int(threadIdx.x); v0 < ne; v0 += kLogitEntries * int(blockDim.x)) {
      float lg[kLogitEntries][kPvHeads];
#pragma unroll
      for (int u = 0; u < kLogitEntries; ++u)
#pragma unroll
        for (int h = 0; h < kPvHeads; ++h) {
          const int v = v0 + u * int(blockDim.x);
          if (v < ne && h < heads) lg[u][h] = s.logits[(head_row + h) * s.stride + e0 + v];
        }
#pragma unroll
      for (int u = 0; u < kLogitEntries; ++u)
#pragma unroll
        for (int h = 0; h < kPvHeads; ++h) {
          const int v = v0 + u * int(blockDim.x);
          if (v < ne && h < heads) expv[v][h] = lg[u][h];
        }
    }
    __syncthreads();
    if (softmax_lane) {  // running maxima in block order, then every block's alpha at once
      for (int b = 0; b < nb; ++b) {
        const bool ok = block_max[b][lane] != -INFINITY || block_nan[b][lane];
        valid[b][lane] = ok;
        if (ok) {
          previous_max[b][lane] = running_max;
          running_max = new_max[b][lane] = fmaxf(running_max, block_max[b][lane]);
        }
      }
    }
    if (!pv_thread) {
      __syncwarp();
      for (int i = lane; i < nb * heads; i += 32)
        if (valid[i / heads][i % heads])
          alpha[i / heads][i % heads] = exp_f32(previous_max[i / heads][i % heads] - new_max[i / heads][i % heads]);
    }
    __syncthreads();
    // an entry's heads: independent exps with one division for all
    for (int v = int(threadIdx.x); v < ne; v += blockDim.x) {
      const int b = v / block;
      const bool in = present[v];
#pragma unroll
      for (int h = 0; h < kPvHeads; ++h) {
        if (h >= heads) break;
        float pr = 0.0f;
        if (valid[b][h] && in) pr = exp_f32(expv[v][h] - new_max[b][h]);
        expv[v][h] = pr;
        prob[v][h] = in ? bf16r(pr) : -0.0f;
      }
    }
    __syncthreads();
    if (own_a) {
      for (int b = 0; b < nb; ++b) {
        const bool va = valid[b][ha], vb = own_b && valid[b][ha + 1];
        if (!va && !vb) continue;
        float ta = va ? __fmul_rn(acc_a, alpha[b][ha]) : 0.0f, tb = vb ? __fmul_rn(acc_b, alpha[b][ha + 1]) : 0.0f;
        const int v1 = std::min(ne, (b + 1) * block);
        auto run = [&](int v, auto guarded) {  // kPvBatch keys loaded, then their sums in order
          float kv[kPvBatch];
#pragma unroll
          for (int j = 0; j < kPvBatch; ++j) kv[j] = (!guarded || v + j < v1 ? key_ptr[v + j] : kZeroKey)[c];
#pragma unroll
          for (int j = 0; j < kPvBatch; ++j) {
            const float2 pr = !guarded || v + j < v1 ? *reinterpret_cast<const float2*>(&prob[v + j][ha])
                                                      : make_float2(-0.0f, -0.0f);
            ta = __fmaf_rn(pr.x, kv[j], ta);
            tb = __fmaf_rn(pr.y, kv[j], tb);
          }
        };
        int v = b * block;
        for (; v + kPvBatch <= v1; v += kPvBatch) run(v, std::false_type{});
        if (v < v1) run(v, std::true_type{});
        if (va) acc_a = ta;
        if (vb) acc_b = tb;
      }
    } else if (softmax_lane) {
      for (int b = 0; b < nb; ++b) {
        if (!valid[b][lane]) continue;
        float sum = __fmul_rn(denominator, alpha[b][lane]);
        const int v1 = std::min(ne, (b + 1) * block);
        int v = b * block;
        for (; v + 8 <= v1; v += 8) {  // eight loads, then their adds in order
          float e[8];
#pragma unroll
          for (int j = 0; j < 8; ++j) e[j] = expv[v + j][lane];
#pragma unroll
          for (int j = 0; j < 8; ++j) sum = __fadd_rn(sum, e[j]);
        }
        for (; v < v1; ++v) sum = __fadd_rn(sum, expv[v][lane]);
        denominator = sum;
      }
    }
    __syncthreads();  // before the next chunk's keys and probabilities overwrite these
  }
  if (softmax_lane) {
    if (!p.sink_left_out) denominator = __fadd_rn(denominator, exp_f32(weight_at(sinks, 0, h0 + lane) - running_max));
    denominators[lane] = denominator;
  }
  __syncthreads();
  float* o = row_ptr<float>(out, rk.row);
  float va = own_a ? bf16r(acc_a / denominators[ha]) : 0.0f, vb = own_b ? bf16r(acc_b / denominators[ha + 1]) : 0.0f;
  if (p.out_rope_freqs && pv_thread) {  // a pair is two neighbouring channels, so two neighbouring lanes
    const float pa = __shfl_xor_sync(0xffffffffu, va, 1), pb = __shfl_xor_sync(0xffffffffu, vb, 1);
    if (rotates()) {  // the barriers since out_angle's writes make them visible
      const float2 angle = out_angle[(threadIdx.x % kPvChannels) / 2];
      const bool even = ((c - (p.head_dim - p.out_rope_dims)) & 1) == 0;  // the pair's first value
      const bool inv = p.out_rope_inverse;
      const float2 ra = even ? rope_rotate(va, pa, angle, inv) : rope_rotate(pa, va, angle, inv);
      const float2 rb = even ? rope_rotate(vb, pb, angle, inv) : rope_rotate(pb, vb, angle, inv);
      va = even ? ra.x : ra.y;
      vb = even ? rb.x : rb.y;
    }
  }
  if (own_a) o[(h0 + ha) * d + c] = va;
  if (own_b) o[(h0 + ha + 1) * d + c] = vb;
}

int64_t blocks_of(const AttentionArgs& p, int64_t entries) { return (entries + p.block - 1) / p.block; }
int64_t floats_per_row(const AttentionArgs& p, int64_t max_entries) {
  return p.heads * (max_entries + 2 * blocks_of(p, max_entries));
}
int64_t rows_per_launch(const AttentionArgs& p, int64_t max_entries) {
  return std::max<int64_t>(1, kScratchFloats / floats_per_row(p, max_entries));
}

// Shared-memory trees: synth's 10-block logits launch 87.2 -> 85.7 us at 16 rows, 14.1 -> 13.8 at 1 (H200, session
// 24). PLUMB_ATTENTION_SMEM_TREE=0 gives the shuffle trees (an A/B switch; the same sums).
bool smem_tree_enabled() {
  static const bool on = env_switch_on("PLUMB_ATTENTION_SMEM_TREE");
  return on;
}

// Heads a logits block serves: more heads read each key once for more dots (at 16 rows a CSA launch of 4 heads a
// block read its keys from L2 16 times over), fewer give more blocks. The most of 16, 8, 4 that still give every
// multiprocessor a block. synth's CSA launch at 16 rows: 78.4 us with 4 heads, 65.4 with 8, 66.7 with 16; at one
// row 13.0 with 4, 14.8 with 8, 21.6 with 16 (H200, session 24; the round -0.73% at 16 rows, 17 of 24). Only the
// shared-memory trees take 8 and 16. PLUMB_LOGIT_HEADS=4, 8 or 16 sets it (an A/B switch and the contract's way to
// each; the same sums whichever).
int logits_heads_per_block(const AttentionArgs& p, int64_t row_blocks) {
  static const int forced = env_int("PLUMB_LOGIT_HEADS", 0);
  static const int64_t sms = multiprocessor_count();
  if (!smem_tree_enabled()) return kLogitHeads;
  if (forced == 4 || forced == 8 || forced == 16) return forced;
  for (int h : {16, 8})
    if (row_blocks * ((p.heads + h - 1) / h) >= sms) return h;
  return kLogitHeads;
}

// The logits kernel for a launch of `heads` heads a block, its dynamic shared memory allowed.
template <int kHeads>
auto logits_kernel_of(const AttentionArgs& p, bool smem_tree) {
  constexpr size_t kMaxBytes = size_t(kHeads) * (32 * kMaxLaneValues + kMaxAttentionBlock) * sizeof(float);
  const bool full = p.head_dim == 32 * kMaxLaneValues;
  if constexpr (kHeads == kLogitHeads) {
    if (!smem_tree) {
      allow_shared_bytes<attention_logits_kernel<true, false, kHeads>, kMaxBytes>();
      allow_shared_bytes<attention_logits_kernel<false, false, kHeads>, kMaxBytes>();
      return full ? attention_logits_kernel<true, false, kHeads> : attention_logits_kernel<false, false, kHeads>;
    }
  }
  allow_shared_bytes<attention_logits_kernel<true, true, kHeads>, kMaxBytes>();
  allow_shared_bytes<attention_logits_kernel<false, true, kHeads>, kMaxBytes>();
  return full ? attention_logits_kernel<true, true, kHeads> : attention_logits_kernel<false, true, kHeads>;
}

auto logits_kernel_for(const AttentionArgs& p, int heads) {
  return heads == 16 ? logits_kernel_of<16>(p, true) : heads == 8 ? logits_kernel_of<8>(p, true)
                                                                    : logits_kernel_of<4>(p, smem_tree_enabled());
}

}  // namespace

int64_t attention_scratch_floats(const AttentionArgs& p, int64_t rows, int64_t max_entries) {
  return std::min(rows, rows_per_launch(p, max_entries)) * floats_per_row(p, max_entries);
}

void attention(const AttentionArgs& p, View q, View ring, View compressed, const View* selected, const WeightRef& sinks,
               const int64_t* token_rows, int64_t max_entries, View out, float* scratch, Stream s) {
  if (q.rows == 0) return;
  PLUMB_CHECK(p.block >= 1 && p.block <= kMaxAttentionBlock);
  PLUMB_CHECK(p.head_dim >= 1 && p.head_dim <= 32 * kMaxLaneValues);
  // A rotated pair's two channels must be neighbouring lanes of one warp: an even first channel.
  PLUMB_CHECK(!p.out_rope_freqs || (p.out_rope_dims % 2 == 0 && p.out_rope_dims <= p.head_dim && p.head_dim % 2 == 0));
  const int64_t blocks = blocks_of(p, max_entries), step = rows_per_launch(p, max_entries);
  for (int64_t r0 = 0; r0 < q.rows; r0 += step) {  // row ranges whose logits fit the scratch
    const int64_t rows = std::min(step, q.rows - r0);
    auto part = [&](View v) {
      v.data = static_cast<char*>(v.data) + r0 * v.stride * 4;  // float32 or int32 elements
      v.rows = rows;
      return v;
    };
    const View sel = selected ? part(*selected) : View{};
    const Keys keys{ring, compressed, sel, selected != nullptr, token_rows + 2 * r0};
    const Scratch sc{scratch, scratch + rows * p.heads * max_entries,
                     reinterpret_cast<int32_t*>(scratch + rows * p.heads * (max_entries + blocks)), max_entries, blocks};
    const int64_t logit_blocks_y = std::clamp<int64_t>(blocks, 1, kLogitBlocksY);
    const int logit_heads = logits_heads_per_block(p, rows * logit_blocks_y);
    const unsigned head_groups = unsigned((p.heads + logit_heads - 1) / logit_heads);
    launch(s, "attention_logits", logits_kernel_for(p, logit_heads),
           dim3(unsigned(rows), unsigned(logit_blocks_y), head_groups), dim3(kLogitThreads),
           logits_shared_bytes(p, logit_heads), p, part(q), keys, sc);
    const dim3 pv_grid(unsigned(rows), unsigned((p.heads + kPvHeads - 1) / kPvHeads),
                       unsigned((p.head_dim + kPvChannels - 1) / kPvChannels));
    static const int64_t sms = multiprocessor_count();
    const auto pv_kernel =
        int64_t(pv_grid.x) * pv_grid.y * pv_grid.z <= sms ? attention_pv_kernel<64> : attention_pv_kernel<32>;
    launch(s, "attention_pv", pv_kernel, pv_grid, dim3(kPvThreads + 32), 0, p, keys, sinks, sc, part(out));
  }
}

}  // namespace plumb::cuda::ops
