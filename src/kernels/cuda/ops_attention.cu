// CUDA backend attention-side ops (dsv4-forward.md section 7): compressor bias and pooling, the lightning indexer
// with plumb's top-k order, and the router's scoring and top-k (sparse attention is in attention.cu). Selections
// sort by a total order (value descending, index ascending, NaN last), so any correct sort picks the same rows.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "base/env_switch.h"
#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/ops_common.cuh"
#include "kernels/cuda/rank_order.h"

namespace plumb::cuda::ops {
namespace {

const kernels::ControlId kLastEntryDropped = kernels::register_control(
    "compressor_pool_cuda", "last_entry_dropped", "the group's last token is left out of the pool");

__global__ void position_bias_kernel(WeightRef ape, int64_t ratio, const int64_t* positions, View score) {
  kernel_prologue();
  const int64_t r = blockIdx.x, bias_row = positions[r] % ratio;
  float* row = row_ptr<float>(score, r);
  loads_then_stores<8, float2>(
      int(score.cols), [&](int c) { return make_float2(row[c], weight_at(ape, bias_row, c)); },
      [&](int c, float2 v) { row[c] = v.x + v.y; });
}

// One thread per channel: the CPU backend's three passes (max, sum of exps, weighted sum) in entry order; the
// exps are recomputed rather than stored (the same float each time), so any ratio fits.
__global__ void compress_pool_kernel(int64_t ratio, int64_t width, bool overlap, int64_t ring_rows, View kv_ring,
                                     View score_ring, const int64_t* rows, View out, bool drop_last) {
  kernel_prologue();
  const int64_t i = blockIdx.x;
  const int64_t slot = rows[2 * i], group = rows[2 * i + 1];
  const int64_t entries = (overlap ? 2 : 1) * ratio - (drop_last ? 1 : 0);
  const int64_t ch = int64_t(blockIdx.y) * blockDim.x + threadIdx.x;  // one channel per thread
  if (ch >= width) return;
  // Entry e: group j-1's first half (e < r) then group j's second half when overlapping; group -1 is skipped.
  auto ring_row = [&](int64_t e) -> int64_t {
    const bool previous = overlap && e < ratio;
    const int64_t token = previous ? (group - 1) * ratio + e : group * ratio + (e % ratio);
    return token < 0 ? -1 : slot * ring_rows + token % ring_rows;
  };
  auto channel = [&](int64_t e) -> int64_t { return (overlap && e >= ratio) ? width : 0; };
  float m = -INFINITY;
  for (int64_t e = 0; e < entries; ++e)
    if (ring_row(e) >= 0) m = fmaxf(m, row_ptr<const float>(score_ring, ring_row(e))[channel(e) + ch]);
  float sum = 0.0f;
  for (int64_t e = 0; e < entries; ++e)
    if (ring_row(e) >= 0) sum += exp_f32(row_ptr<const float>(score_ring, ring_row(e))[channel(e) + ch] - m);
  float acc = 0.0f;
  for (int64_t e = 0; e < entries; ++e) {
    if (ring_row(e) < 0) continue;
    const float w = exp_f32(row_ptr<const float>(score_ring, ring_row(e))[channel(e) + ch] - m);
    acc += (w / sum) * row_ptr<const float>(kv_ring, ring_row(e))[channel(e) + ch];
  }
  row_ptr<float>(out, i)[ch] = bf16r(acc);
}

// One head's term of an index row's score: the dot rounded to bf16, relu (which keeps NaN), times the head's weight,
// rounded again, as the release does.
__device__ __forceinline__ float indexer_term(const IndexerArgs& p, float dot, const float* head_weight, int h) {
  const float logit = bf16r(dot);
  const float relu = isnan(logit) || p.relu_dropped ? logit : fmaxf(logit, 0.0f);
  return bf16r(relu * head_weight[h]);
}

// Scores of every visible index row for one query: a warp per index row, lane l computing heads l, l + 32, ...
// (each head's dot in channel order, bf16 roundings as the release), the heads summed in order by every lane.
// The query sits transposed in shared memory ([channel][head]), so the lanes' reads of one channel are adjacent.
// Each warp first copies its index row to shared memory with all lanes' loads in flight at once; the dots read
// it from there (the loop had waited on one global load of the row per channel). Two heads a lane per step, so
// two fma chains run side by side. Blocks (r, y) take index rows y * warps + warp, stepping by gridDim.y * warps.
__global__ void indexer_scores_kernel(IndexerArgs p, View q, View w, View index_rows, const int64_t* token_rows,
                                      float* scratch) {
  kernel_prologue();
  extern __shared__ float query_t[];  // [head_dim][heads + 1]: the pad puts a channel's heads in other banks,
                                      // then each warp's index row [warps][head_dim]
  const int64_t r = blockIdx.x;
  const int64_t slot = token_rows[2 * r], visible = (token_rows[2 * r + 1] + 1) / p.ratio;
  const int warps = int(blockDim.x / 32), warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32);
  if (int64_t(blockIdx.y) * warps >= visible) return;
  const int dim = int(p.head_dim), heads = int(p.heads), stride = heads + 1;
  float* key_s = query_t + dim * stride + warp * dim;
  const float* query = row_ptr<const float>(q, r);
  const float* head_weight = row_ptr<const float>(w, r);
  // 16 loads a thread before their stores (32 values a thread at 64 heads of 128)
  loads_then_stores<16, float>(
      heads * dim, [&](int i) { return query[i]; }, [&](int i, float v) { query_t[(i % dim) * stride + i / dim] = v; });
  __syncthreads();
  for (int64_t t = int64_t(blockIdx.y) * warps + warp; t < visible; t += int64_t(gridDim.y) * warps) {
    const float* key = row_ptr<const float>(index_rows, slot * p.rows_per_slot + t);
    __syncwarp();  // the previous row's dots are done with key_s
    for (int c0 = 0; c0 < dim; c0 += 32 * 8) {  // eight loads a lane before their stores (one batch to 256)
      float v[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (c0 + lane + 32 * j < dim) v[j] = key[c0 + lane + 32 * j];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (c0 + lane + 32 * j < dim) key_s[c0 + lane + 32 * j] = v[j];
    }
    __syncwarp();
    float total = 0.0f;
    for (int h0 = 0; h0 < heads; h0 += 64) {
      const int ha = h0 + lane, hb = ha + 32;
      const bool has_a = ha < heads, has_b = hb < heads;
      float dot_a = 0.0f, dot_b = 0.0f;
      for (int c = 0; c < dim; ++c) {
        const float k = key_s[c];
        if (has_a) dot_a = fmaf(query_t[c * stride + ha], k, dot_a);
        if (has_b) dot_b = fmaf(query_t[c * stride + hb], k, dot_b);
      }
      const float term_a = has_a ? indexer_term(p, dot_a, head_weight, ha) : 0.0f;
      const float term_b = has_b ? indexer_term(p, dot_b, head_weight, hb) : 0.0f;
      for (int i = 0; i < 32 && h0 + i < heads; ++i) total += __shfl_sync(0xffffffffu, term_a, i);
      for (int i = 0; i < 32 && h0 + 32 + i < heads; ++i) total += __shfl_sync(0xffffffffu, term_b, i);
    }
    if (lane == 0) scratch[r * p.rows_per_slot + t] = bf16r(total);
  }
}

// indexer_scores_kernel's scores, kT index rows a warp at once: each query value read from shared memory serves kT
// index rows, and a channel quad of each index row is one broadcast LDS.128 (the one-row kernel made 3 loads a
// channel for its 2 fmas). Each head's dot runs over the channels in order and the heads' terms are summed in head
// order, each index row its own chain, so every score keeps its bits. Index rows go kT consecutive to a warp.
template <int kT>
__global__ void indexer_scores_rows_kernel(IndexerArgs p, View q, View w, View index_rows, const int64_t* token_rows,
                                           float* scratch) {
  kernel_prologue();
  extern __shared__ __align__(16) float query_t[];  // [head_dim][heads + 1], then each warp's kT index rows
  const int64_t r = blockIdx.x;
  const int64_t slot = token_rows[2 * r], visible = (token_rows[2 * r + 1] + 1) / p.ratio;
  const int warps = int(blockDim.x / 32), warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32);
  if (int64_t(blockIdx.y) * warps * kT >= visible) return;
  const int dim = int(p.head_dim), heads = int(p.heads), stride = heads + 1;
  float* key_s = query_t + dim * stride + warp * kT * dim;
  const float* query = row_ptr<const float>(q, r);
  const float* head_weight = row_ptr<const float>(w, r);
  loads_then_stores<16, float>(
      heads * dim, [&](int i) { return query[i]; }, [&](int i, float v) { query_t[(i % dim) * stride + i / dim] = v; });
  __syncthreads();
  const int64_t step = int64_t(gridDim.y) * warps * kT;
  for (int64_t t0 = (int64_t(blockIdx.y) * warps + warp) * kT; t0 < visible; t0 += step) {
    __syncwarp();  // the previous rows' dots are done with key_s
    for (int c0 = 0; c0 < dim; c0 += 32 * 4) {  // every row's loads in flight before the stores (zeros past visible)
      float v[kT][4];
#pragma unroll
      for (int j = 0; j < kT; ++j) {
        const float* key = row_ptr<const float>(index_rows, slot * p.rows_per_slot + t0 + j);
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int c = c0 + lane + 32 * u;
          v[j][u] = t0 + j < visible && c < dim ? key[c] : 0.0f;
        }
      }
#pragma unroll
      for (int j = 0; j < kT; ++j)
#pragma unroll
        for (int u = 0; u < 4; ++u)
          if (c0 + lane + 32 * u < dim) key_s[j * dim + c0 + lane + 32 * u] = v[j][u];
    }
    __syncwarp();
    float total[kT];
#pragma unroll
    for (int j = 0; j < kT; ++j) total[j] = 0.0f;
    for (int h0 = 0; h0 < heads; h0 += 64) {
      const int ha = h0 + lane, hb = ha + 32;
      const bool has_a = ha < heads, has_b = hb < heads;
      float dot_a[kT], dot_b[kT];
#pragma unroll
      for (int j = 0; j < kT; ++j) dot_a[j] = dot_b[j] = 0.0f;
      for (int c = 0; c < dim; c += 4) {
        float4 k4[kT];
#pragma unroll
        for (int j = 0; j < kT; ++j) k4[j] = *reinterpret_cast<const float4*>(key_s + j * dim + c);
#pragma unroll
        for (int cc = 0; cc < 4; ++cc) {
          const float qa = has_a ? query_t[(c + cc) * stride + ha] : 0.0f;
          const float qb = has_b ? query_t[(c + cc) * stride + hb] : 0.0f;
#pragma unroll
          for (int j = 0; j < kT; ++j) {
            const float k = cc == 0 ? k4[j].x : cc == 1 ? k4[j].y : cc == 2 ? k4[j].z : k4[j].w;
            dot_a[j] = fmaf(qa, k, dot_a[j]);
            dot_b[j] = fmaf(qb, k, dot_b[j]);
          }
        }
      }
      float term_a[kT], term_b[kT];
#pragma unroll
      for (int j = 0; j < kT; ++j) {
        term_a[j] = has_a ? indexer_term(p, dot_a[j], head_weight, ha) : 0.0f;
        term_b[j] = has_b ? indexer_term(p, dot_b[j], head_weight, hb) : 0.0f;
      }
      for (int i = 0; i < 32 && h0 + i < heads; ++i)
#pragma unroll
        for (int j = 0; j < kT; ++j) total[j] += __shfl_sync(0xffffffffu, term_a[j], i);
      for (int i = 0; i < 32 && h0 + 32 + i < heads; ++i)
#pragma unroll
        for (int j = 0; j < kT; ++j) total[j] += __shfl_sync(0xffffffffu, term_b[j], i);
    }
#pragma unroll
    for (int j = 0; j < kT; ++j)
      if (lane == j && t0 + j < visible) scratch[r * p.rows_per_slot + t0 + j] = bf16r(total[j]);
  }
}

// Two ways to the same selection: rows with up to count_max visible index rows are ranked by counting, spread over
// many blocks (indexer_select_kernel); longer ones by one block's bitonic sort (indexer_sort_kernel), since
// counting does up to visible^2 compares a row (when the rows ranked first come last in its scan) and the sort
// visible log^2 visible. Both give the same rows in the same order.
constexpr int kMaxSortEntries = 16384;  // index rows one query can sort in shared memory

// Bitonic sort of n2 (a power of two) entries in shared memory by ranks_before; padding entries have index -1 and
// rank last (they are given index INT_MAX for the comparison). A stage of stride <= 32 pairs entries within
// 64-entry segments, and pair t lies in segment t / 32, so each segment belongs to one warp: between two such
// stages only the warp waits, not the block.
__device__ void bitonic_sort(float* value, int32_t* index, int n2) {
  for (int size = 2; size <= n2; size *= 2) {
    for (int stride = size / 2; stride > 0; stride /= 2) {
      const int next = stride > 1 ? stride / 2 : size * 2 <= n2 ? size : 0;  // the next stage's stride (0: none)
      for (int t = threadIdx.x; t < n2 / 2; t += blockDim.x) {
        const int i = 2 * stride * (t / stride) + t % stride, j = i + stride;
        const bool ascending = (i & size) == 0;
        const int32_t ii = index[i] < 0 ? 0x7fffffff : index[i], ij = index[j] < 0 ? 0x7fffffff : index[j];
        const bool pad_i = index[i] < 0, pad_j = index[j] < 0;
        bool i_first;
        if (pad_i != pad_j) {
          i_first = pad_j;
        } else {
          i_first = ranks_before(value[i], ii, value[j], ij);
        }
        if (i_first != ascending) {
          const float tv = value[i];
          value[i] = value[j];
          value[j] = tv;
          const int32_t ti = index[i];
          index[i] = index[j];
          index[j] = ti;
        }
      }
      if (stride <= 32 && next != 0 && next <= 32) {
        __syncwarp();
      } else {
        __syncthreads();
      }
    }
  }
}

__global__ void indexer_sort_kernel(IndexerArgs p, const int64_t* token_rows, const float* scratch, View selected,
                                    float* margin, int64_t margin_stride, int n2, int count_max) {
  kernel_prologue();
  extern __shared__ unsigned char smem[];
  float* value = reinterpret_cast<float*>(smem);
  int32_t* index = reinterpret_cast<int32_t*>(value + n2);
  const int64_t r = blockIdx.x;
  const int64_t visible = (token_rows[2 * r + 1] + 1) / p.ratio;
  if (visible <= count_max) return;  // indexer_select_kernel ranked this row
  // Sort the smallest power of two that holds the visible rows, not the slot's capacity (16384 entries took 45 us
  // at 1024 visible, H200): padding ranks last, so the sorted prefix is the same.
  int m = 1;
  while (m < visible && m < n2) m *= 2;
  for (int i = threadIdx.x; i < m; i += blockDim.x) {
    value[i] = i < visible ? scratch[r * p.rows_per_slot + i] : 0.0f;
    index[i] = i < visible ? i : -1;
  }
  __syncthreads();
  bitonic_sort(value, index, m);
  const int64_t kept = visible < p.topk ? visible : p.topk;
  for (int64_t i = threadIdx.x; i < p.topk; i += blockDim.x) row_ptr<int32_t>(selected, r)[i] = i < kept ? index[i] : -1;
  if (margin && threadIdx.x == 0)
    margin[r * margin_stride] = (visible > kept && kept > 0) ? value[kept - 1] - value[kept] : INFINITY;
}

// The selection by counting: a visible index row's place in the top-k order (ranks_before's total order) is the
// number of visible rows that rank before it, so the rows picked, and their order, are any correct sort's. Rank
// keys make the order one 64-bit compare: value descending (+0 and -0 equal, NaN after every number), then index.
// kRankParts threads count for each row, a share of the rows each (eight: twice the blocks of four, session 12);
// a row with more than `kept` rows before it is neither picked nor the margin's, so it stops counting. The row
// ranked `kept` also finds the row just before it (the largest key below its own) and writes the margin: the last
// kept score minus the first left out.
constexpr int kRankThreads = 256, kRankParts = 8, kRankRows = kRankThreads / kRankParts, kRankChunk = 4096,
              kRankBlocksY = 64;

// The sum of a row's kRankParts counts (its threads are adjacent lanes).
__device__ __forceinline__ int rank_parts_sum(int count) {
#pragma unroll
  for (int o = 1; o < kRankParts; o <<= 1) count += __shfl_xor_sync(0xffffffffu, count, o);
  return count;
}

__global__ void __launch_bounds__(kRankThreads) indexer_select_kernel(IndexerArgs p, const int64_t* token_rows,
                                                                      const float* scratch, View selected,
                                                                      float* margin, int64_t margin_stride,
                                                                      int count_max) {
  kernel_prologue();
  __shared__ uint64_t keys[kRankChunk];
  const int64_t r = blockIdx.x;
  const int visible = int((token_rows[2 * r + 1] + 1) / p.ratio), kept = int(visible < p.topk ? visible : p.topk);
  if (visible > count_max) return;  // indexer_sort_kernel ranks this row
  const float* score = scratch + r * p.rows_per_slot;
  int32_t* out = row_ptr<int32_t>(selected, r);
  const int part = int(threadIdx.x % kRankParts);
  if (blockIdx.y == 0) {
    for (int i = kept + int(threadIdx.x); i < p.topk; i += blockDim.x) out[i] = -1;
    if (margin && threadIdx.x == 0 && (visible <= kept || kept == 0)) margin[r * margin_stride] = INFINITY;
  }
  for (int i0 = int(blockIdx.y) * kRankRows; i0 < visible; i0 += int(gridDim.y) * kRankRows) {
    const int i = i0 + int(threadIdx.x / kRankParts);
    const uint64_t mine = i < visible ? rank_key(score[i], i) : 0;
    int count = 0;             // this thread's share: rows before row i
    uint64_t before = 0;       // and the largest of their keys (when any_before)
    bool any_before = false;
    bool done = i >= visible;  // the same for the row's threads
    for (int c0 = 0; c0 < visible; c0 += kRankChunk) {
      const int n = visible - c0 < kRankChunk ? visible - c0 : kRankChunk;
      __syncthreads();
      for (int j = int(threadIdx.x); j < n; j += blockDim.x) keys[j] = rank_key(score[c0 + j], c0 + j);
      __syncthreads();
      for (int j0 = 0; j0 < n; j0 += 256) {  // 256 rows, then the four threads' counts are summed and checked
        if (__all_sync(0xffffffffu, done)) break;
        if (!done) {
          const int j1 = j0 + 256 < n ? j0 + 256 : n;
          for (int j = j0 + part; j < j1; j += kRankParts) {
            const uint64_t k = keys[j];
            if (k < mine) {
              ++count;
              if (!any_before || k > before) before = k, any_before = true;
            }
          }
        }
        const int total = rank_parts_sum(count);
        done = done || total > kept;
      }
    }
    const int total = rank_parts_sum(count);
    for (int o = 1; o < kRankParts; o <<= 1) {  // the largest key before row i, over the row's threads
      const uint64_t other = __shfl_xor_sync(0xffffffffu, before, o);
      const bool other_any = __shfl_xor_sync(0xffffffffu, any_before, o);
      if (other_any && (!any_before || other > before)) before = other, any_before = true;
    }
    if (part == 0 && i < visible) {
      if (total < kept) out[total] = i;
      if (margin && total == kept && kept > 0) margin[r * margin_stride] = score[int32_t(before)] - score[i];
    }
  }
}

__device__ __forceinline__ float softplus_f32(float v) { return v > 20.0f ? v : float(log1p(exp(double(v)))); }

// One block per row. Every thread scores its experts (sqrt(softplus(logit)) + bias, in shared memory with the gate
// values sqrt(softplus(logit)) the weights reuse, and each score's rank key: plumb's total order as one unsigned
// compare); then each expert counts the experts ranked before it, and the first top_k + 1 (one more than kept, for
// the margin) write themselves at their rank: the picks a one-at-a-time selection makes, in one parallel step. Or
// the hash table's experts. Thread 0 normalises the weights in selection order. (Seven block-wide picks, and thread 0
// working out the chosen gates again in double, took 15.9 us a row on the H200; this takes 6.0, ncu, session 10.)
constexpr int kRouteThreads = 256;
constexpr int kMaxRoutedExperts = 1024;
constexpr int kMaxRouteTopK = 16;

__global__ void route_kernel(RouterArgs p, View logits, WeightRef bias, WeightRef tid2eid, const int32_t* tokens,
                             View ids, View weights, float* margin, int64_t margin_stride) {
  __shared__ float value[kMaxRoutedExperts], gate[kMaxRoutedExperts];
  __shared__ uint64_t key[kMaxRoutedExperts];
  __shared__ int32_t chosen[kMaxRouteTopK + 1];
  __shared__ float chosen_value[kMaxRouteTopK + 1], chosen_gate[kMaxRouteTopK];
  const int64_t r = blockIdx.x;
  // The hash table's experts come from staged tokens and a constant table: read before the wait.
  if (p.hash && threadIdx.x < p.topk) chosen[threadIdx.x] = int32_t(weight_at(tid2eid, tokens[r], threadIdx.x));
  kernel_prologue();
  const float* l = row_ptr<const float>(logits, r);
  if (p.hash) {
    if (threadIdx.x < p.topk) chosen_gate[threadIdx.x] = sqrtf(softplus_f32(l[chosen[threadIdx.x]]));
  } else {
    const int32_t experts = int32_t(p.experts);
    for (int32_t e = int32_t(threadIdx.x); e < experts; e += blockDim.x) {
      gate[e] = sqrtf(softplus_f32(l[e]));
      value[e] = gate[e] + weight_at(bias, 0, e);
      key[e] = rank_key(value[e], e);
    }
    __syncthreads();
    const int64_t picks = p.topk + 1 < p.experts ? p.topk + 1 : p.experts;
    for (int32_t e = int32_t(threadIdx.x); e < experts; e += blockDim.x) {
      const uint64_t mine = key[e];
      int32_t before[4] = {0, 0, 0, 0};  // four counts, so the compares do not wait on one another
      int32_t j = 0;
      for (; j + 4 <= experts; j += 4)
#pragma unroll
        for (int q = 0; q < 4; ++q) before[q] += key[j + q] < mine ? 1 : 0;
      for (; j < experts; ++j) before[0] += key[j] < mine ? 1 : 0;
      const int32_t rank = before[0] + before[1] + before[2] + before[3];
      if (rank < picks) {
        chosen[rank] = e;
        chosen_value[rank] = value[e];
        if (rank < p.topk) chosen_gate[rank] = gate[e];
      }
    }
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  float gap = INFINITY;
  if (!p.hash && p.topk < p.experts) gap = chosen_value[p.topk - 1] - chosen_value[p.topk];
  float sum = 0.0f;
  for (int64_t i = 0; i < p.topk; ++i) sum += chosen_gate[i];
  for (int64_t i = 0; i < p.topk; ++i) {
    row_ptr<int32_t>(ids, r)[i] = chosen[i];
    row_ptr<float>(weights, r)[i] = chosen_gate[i] / sum * p.route_scale;
  }
  if (margin) margin[r * margin_stride] = gap;
}

}  // namespace

void add_position_bias(const WeightRef& ape, int64_t ratio, const int64_t* positions, View score, Stream s) {
  if (score.rows == 0) return;
  launch(s, "position_bias", position_bias_kernel, dim3(unsigned(score.rows)), dim3(256), 0, ape, ratio, positions,
         score);
}

void compress_pool(int64_t ratio, int64_t width, bool overlap, int64_t ring_rows, View kv_ring, View score_ring,
                   const int64_t* rows, int64_t count, View out, Stream s) {
  if (count == 0) return;
  // A thread per (group, channel): an HCA group pools 128 entries per channel with two exps each, which one
  // 128-thread block per group took 48 us to walk (H200).
  constexpr int kThreads = 64;
  launch(s, "compress_pool", compress_pool_kernel, dim3(unsigned(count), unsigned((width + kThreads - 1) / kThreads)),
         dim3(kThreads), 0, ratio, width, overlap, ring_rows, kv_ring, score_ring, rows, out,
         kernels::planted(kLastEntryDropped));
}

int64_t indexer_scratch_floats(const IndexerArgs& p, int64_t rows) { return rows * p.rows_per_slot; }

void indexer_topk(const IndexerArgs& p, View q, View w, View index_rows, const int64_t* token_rows, View selected,
                  float* margin, int64_t margin_stride, float* scratch, Stream s) {
  if (q.rows == 0) return;
  // Enough blocks that each warp scores a few index rows; blocks past a row's visible rows return at once.
  constexpr int kScoreWarps = 8;
  const int64_t by = std::min<int64_t>((p.rows_per_slot + kScoreWarps - 1) / kScoreWarps, 256);
  // Unpadded, consecutive threads wrote one bank 32 ways while transposing the query (every block does it).
  const size_t query_bytes = size_t((p.heads + 1 + kScoreWarps) * p.head_dim) * sizeof(float);  // and the keys
  if (query_bytes > 48 * 1024)
    PLUMB_CUDA_CHECK(cudaFuncSetAttribute(indexer_scores_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          int(query_bytes)));
  // Four index rows a warp from 3 query rows: at 4 (H200, session 24, synth's CSA layer) 17.3 us against 22.6
  // one row a warp, but at 1 query row 16.8 against 13.6 (a quarter of the warps). The same bits either way, so the
  // contract's gate 3 (rows served together against each alone) checks one kernel against the other.
  // PLUMB_INDEXER_ROWS4=0 keeps one index row a warp at every row count (an A/B switch).
  static const bool rows4 = env_switch_on("PLUMB_INDEXER_ROWS4");
  constexpr int kT = 4, kRows4From = 3;
  constexpr size_t kMaxRowsBytes = 96 << 10;
  const size_t bytes = size_t((p.heads + 1 + kScoreWarps * kT) * p.head_dim) * sizeof(float);
  if (rows4 && q.rows >= kRows4From && p.head_dim % 4 == 0 && bytes <= kMaxRowsBytes) {
    const int64_t by4 = std::min<int64_t>((p.rows_per_slot + kScoreWarps * kT - 1) / (kScoreWarps * kT), 256);
    allow_shared_bytes<indexer_scores_rows_kernel<kT>, kMaxRowsBytes>();
    launch(s, "indexer_scores", indexer_scores_rows_kernel<kT>,
           dim3(unsigned(q.rows), unsigned(std::max<int64_t>(by4, 1))), dim3(kScoreWarps * 32), bytes, p, q, w,
           index_rows, token_rows, scratch);
  } else {
    launch(s, "indexer_scores", indexer_scores_kernel, dim3(unsigned(q.rows), unsigned(std::max<int64_t>(by, 1))),
           dim3(kScoreWarps * 32), query_bytes, p, q, w, index_rows, token_rows, scratch);
  }
  // Counting up to 4096 visible rows (a 16K-token CSA context); PLUMB_INDEXER_COUNT_MAX sets another bound, so a
  // test can send every row through the sort.
  static const int count_max = std::max(0, env_int("PLUMB_INDEXER_COUNT_MAX", 4096));
  const int64_t counted = std::min<int64_t>(p.rows_per_slot, count_max);
  const int64_t rank_blocks = std::min<int64_t>((counted + kRankRows - 1) / kRankRows, kRankBlocksY);
  launch(s, "indexer_select", indexer_select_kernel, dim3(unsigned(q.rows), unsigned(std::max<int64_t>(rank_blocks, 1))),
         dim3(kRankThreads), 0, p, token_rows, scratch, selected, margin, margin_stride, count_max);
  if (p.rows_per_slot <= count_max) return;
  int n2 = 1;
  while (n2 < p.rows_per_slot) n2 *= 2;
  if (n2 > kMaxSortEntries)
    fail("CUDA indexer: {} index rows per slot exceed the {} one query can sort", p.rows_per_slot, kMaxSortEntries);
  constexpr size_t kEntryBytes = sizeof(float) + sizeof(int32_t);
  allow_shared_bytes<indexer_sort_kernel, kMaxSortEntries * kEntryBytes>();
  const size_t smem = size_t(n2) * kEntryBytes;
  launch(s, "indexer_sort", indexer_sort_kernel, dim3(unsigned(q.rows)), dim3(512), smem, p, token_rows, scratch,
         selected, margin, margin_stride, n2, count_max);
}

void route(const RouterArgs& p, View logits, const WeightRef& bias, const WeightRef& tid2eid, const int32_t* tokens,
           View ids, View weights, float* margin, int64_t margin_stride, Stream s) {
  PLUMB_CHECK(p.topk >= 1 && p.topk <= kMaxRouteTopK && p.topk <= p.experts && p.experts <= kMaxRoutedExperts);
  if (logits.rows == 0) return;
  launch(s, "route", route_kernel, dim3(unsigned(logits.rows)), dim3(kRouteThreads), 0, p, logits, bias, tid2eid, tokens,
         ids, weights, margin, margin_stride);
}

}  // namespace plumb::cuda::ops
