// CUDA backend attention-side ops (dsv4-forward.md section 7): compressor bias and pooling, the lightning indexer
// with plumb's top-k order, sparse attention with sinks (the CPU backend's online softmax, key order and
// rounding), and the router's scoring and top-k. Selections sort by a total order (value descending, index
// ascending, NaN last), so any correct sort picks the same rows.
#include <cmath>

#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/ops_common.cuh"

namespace plumb::cuda::ops {
namespace {

const kernels::ControlId kLastEntryDropped = kernels::register_control(
    "compressor_pool_cuda", "last_entry_dropped", "the group's last token is left out of the pool");

constexpr int kMaxSortEntries = 16384;  // indexer rows one query can rank in shared memory

__global__ void position_bias_kernel(WeightRef ape, int64_t ratio, const int64_t* positions, View score) {
  const int64_t r = blockIdx.x;
  for (int64_t c = threadIdx.x; c < score.cols; c += blockDim.x)
    row_ptr<float>(score, r)[c] += weight_at(ape, positions[r] % ratio, c);
}

// One thread per channel: the CPU backend's three passes (max, sum of exps, weighted sum) in entry order; the
// exps are recomputed rather than stored (the same float each time), so any ratio fits.
__global__ void compress_pool_kernel(int64_t ratio, int64_t width, bool overlap, int64_t ring_rows, View kv_ring,
                                     View score_ring, const int64_t* rows, View out, bool drop_last) {
  const int64_t i = blockIdx.x;
  const int64_t slot = rows[2 * i], group = rows[2 * i + 1];
  const int64_t entries = (overlap ? 2 : 1) * ratio - (drop_last ? 1 : 0);
  // Entry e: group j-1's first half (e < r) then group j's second half when overlapping; group -1 is skipped.
  auto ring_row = [&](int64_t e) -> int64_t {
    const bool previous = overlap && e < ratio;
    const int64_t token = previous ? (group - 1) * ratio + e : group * ratio + (e % ratio);
    return token < 0 ? -1 : slot * ring_rows + token % ring_rows;
  };
  auto channel = [&](int64_t e) -> int64_t { return (overlap && e >= ratio) ? width : 0; };
  for (int64_t ch = threadIdx.x; ch < width; ch += blockDim.x) {
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
}

// True when (va, ia) ranks before (vb, ib): larger value first, NaN after every number, then lower index.
__device__ __forceinline__ bool ranks_before(float va, int32_t ia, float vb, int32_t ib) {
  const bool na = isnan(va), nb = isnan(vb);
  if (na != nb) return nb;
  if (!na && va != vb) return va > vb;
  return ia < ib;
}

// Bitonic sort of n2 (a power of two) entries in shared memory by ranks_before; padding entries have index -1 and
// rank last (they are given index INT_MAX for the comparison).
__device__ void bitonic_sort(float* value, int32_t* index, int n2) {
  for (int size = 2; size <= n2; size *= 2) {
    for (int stride = size / 2; stride > 0; stride /= 2) {
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
      __syncthreads();
    }
  }
}

// Scores of every visible index row for one query (thread per row: heads in order, bf16 roundings as the release).
__global__ void indexer_scores_kernel(IndexerArgs p, View q, View w, View index_rows, const int64_t* token_rows,
                                      float* scratch) {
  const int64_t r = blockIdx.x;
  const int64_t slot = token_rows[2 * r], visible = (token_rows[2 * r + 1] + 1) / p.ratio;
  const float* query = row_ptr<const float>(q, r);
  const float* head_weight = row_ptr<const float>(w, r);
  for (int64_t t = threadIdx.x; t < visible; t += blockDim.x) {
    const float* key = row_ptr<const float>(index_rows, slot * p.rows_per_slot + t);
    float total = 0.0f;
    for (int64_t h = 0; h < p.heads; ++h) {
      float dot = 0.0f;
      for (int64_t c = 0; c < p.head_dim; ++c) dot += query[h * p.head_dim + c] * key[c];
      const float logit = bf16r(dot);
      const float relu = isnan(logit) || p.relu_dropped ? logit : fmaxf(logit, 0.0f);  // relu keeps NaN
      total += bf16r(relu * head_weight[h]);
    }
    scratch[r * p.rows_per_slot + t] = bf16r(total);
  }
}

__global__ void indexer_select_kernel(IndexerArgs p, const int64_t* token_rows, const float* scratch, View selected,
                                      float* margin, int64_t margin_stride, int n2) {
  extern __shared__ unsigned char smem[];
  float* value = reinterpret_cast<float*>(smem);
  int32_t* index = reinterpret_cast<int32_t*>(value + n2);
  const int64_t r = blockIdx.x;
  const int64_t visible = (token_rows[2 * r + 1] + 1) / p.ratio;
  for (int i = threadIdx.x; i < n2; i += blockDim.x) {
    value[i] = i < visible ? scratch[r * p.rows_per_slot + i] : 0.0f;
    index[i] = i < visible ? i : -1;
  }
  __syncthreads();
  bitonic_sort(value, index, n2);
  const int64_t kept = visible < p.topk ? visible : p.topk;
  for (int64_t i = threadIdx.x; i < p.topk; i += blockDim.x) row_ptr<int32_t>(selected, r)[i] = i < kept ? index[i] : -1;
  if (margin && threadIdx.x == 0)
    margin[r * margin_stride] = (visible > kept && kept > 0) ? value[kept - 1] - value[kept] : INFINITY;
}

// One block per (row, head): keys = [window positions oldest to newest, padded to `window`, then compressed rows];
// blocks of `block` entries; logits by warps (fixed lane order and xor tree), the running max, probabilities and
// denominator on one thread in key order, P.V per channel in key order.
__global__ void attention_kernel(AttentionArgs p, View q, View ring, View compressed, View selected, bool has_selected,
                                 WeightRef sinks, const int64_t* token_rows, View out) {
  extern __shared__ float sm[];
  float* logit = sm;                   // [block]
  float* prob = logit + p.block;       // [block] (bf16-rounded)
  float* acc = prob + p.block;         // [head_dim]
  __shared__ float running_max, denominator, alpha;
  __shared__ int any_valid;
  const int64_t r = blockIdx.x, h = blockIdx.y, d = p.head_dim;
  const int64_t slot = token_rows[2 * r], position = token_rows[2 * r + 1];
  const float* query = row_ptr<const float>(q, r) + h * d;
  const int64_t first = position - p.window + 1 > 0 ? position - p.window + 1 : 0;
  int64_t compressed_count = 0;
  if (p.compress_ratio > 0) compressed_count = has_selected ? selected.cols : (position + 1) / p.compress_ratio;
  const int64_t total = p.window + compressed_count;
  auto key_of = [&](int64_t e) -> const float* {
    if (e < p.window) {
      const int64_t pos = first + e;
      return pos <= position ? row_ptr<const float>(ring, slot * p.ring_rows + pos % p.ring_rows) : nullptr;
    }
    const int64_t i = e - p.window;
    const int64_t j = has_selected ? int64_t(row_ptr<const int32_t>(selected, r)[i]) : i;
    if (j < 0 && p.padding_reads_row_0) return row_ptr<const float>(compressed, slot * p.compressed_rows_per_slot);
    return j < 0 ? nullptr : row_ptr<const float>(compressed, slot * p.compressed_rows_per_slot + j);
  };
  for (int64_t c = threadIdx.x; c < d; c += blockDim.x) acc[c] = 0.0f;
  if (threadIdx.x == 0) {
    running_max = -INFINITY;
    denominator = 0.0f;
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (int64_t b0 = 0; b0 < total; b0 += p.block) {
    const int64_t b1 = b0 + p.block < total ? b0 + p.block : total;
    for (int64_t v = b0 + warp; v < b1; v += warps) {
      const float* key = key_of(v);
      float dot = 0.0f;
      if (key)
        for (int64_t c = lane; c < d; c += 32) dot += query[c] * key[c];
      dot = warp_sum(dot);
      if (lane == 0) logit[v - b0] = key ? dot * p.softmax_scale : -INFINITY;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      float block_max = -INFINITY;
      bool nan_logit = false;
      for (int64_t v = b0; v < b1; ++v)
        if (key_of(v)) {
          block_max = fmaxf(block_max, logit[v - b0]);
          nan_logit = nan_logit || isnan(logit[v - b0]);
        }
      // A NaN logit is not skipped with the empty blocks (fmaxf drops it): it makes the output NaN.
      any_valid = block_max != -INFINITY || nan_logit;
      if (any_valid) {
        const float new_max = fmaxf(running_max, block_max);
        alpha = exp_f32(running_max - new_max);
        denominator *= alpha;
        for (int64_t v = b0; v < b1; ++v) {
          if (!key_of(v)) {
            prob[v - b0] = 0.0f;
            continue;
          }
          const float pr = exp_f32(logit[v - b0] - new_max);
          denominator += pr;
          prob[v - b0] = bf16r(pr);
        }
        running_max = new_max;
      }
    }
    __syncthreads();
    if (any_valid) {
      for (int64_t c = threadIdx.x; c < d; c += blockDim.x) {
        float a = acc[c] * alpha;
        for (int64_t v = b0; v < b1; ++v) {
          const float* key = key_of(v);
          if (key) a += prob[v - b0] * key[c];
        }
        acc[c] = a;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0 && !p.sink_left_out) denominator += exp_f32(weight_at(sinks, 0, h) - running_max);
  __syncthreads();
  for (int64_t c = threadIdx.x; c < d; c += blockDim.x) row_ptr<float>(out, r)[h * d + c] = bf16r(acc[c] / denominator);
}

__device__ __forceinline__ float softplus_f32(float v) { return v > 20.0f ? v : float(log1p(exp(double(v)))); }

// One thread per row: scores, the top-k by score + bias (plumb's order) or the hash table's experts, and weights
// normalised in selection order.
__global__ void route_kernel(RouterArgs p, View logits, WeightRef bias, WeightRef tid2eid, const int32_t* tokens,
                             View ids, View weights, float* margin, int64_t margin_stride, int64_t rows) {
  const int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* l = row_ptr<const float>(logits, r);
  int32_t chosen[16];
  float gap = INFINITY;
  if (p.hash) {
    for (int64_t i = 0; i < p.topk; ++i) chosen[i] = int32_t(weight_at(tid2eid, tokens[r], i));
  } else {
    float last = 0.0f;
    for (int64_t i = 0; i <= p.topk && i < p.experts; ++i) {  // one more than kept, for the margin
      int32_t best = -1;
      float best_v = 0.0f;
      for (int32_t e = 0; e < p.experts; ++e) {
        bool taken = false;
        for (int64_t j = 0; j < i && j < p.topk; ++j) taken = taken || chosen[j] == e;
        if (taken) continue;
        const float v = sqrtf(softplus_f32(l[e])) + weight_at(bias, 0, e);
        if (best < 0 || ranks_before(v, e, best_v, best)) {
          best = e;
          best_v = v;
        }
      }
      if (i < p.topk) {
        chosen[i] = best;
        last = best_v;
      } else {
        gap = last - best_v;
      }
    }
  }
  float sum = 0.0f;
  for (int64_t i = 0; i < p.topk; ++i) sum += sqrtf(softplus_f32(l[chosen[i]]));
  for (int64_t i = 0; i < p.topk; ++i) {
    row_ptr<int32_t>(ids, r)[i] = chosen[i];
    row_ptr<float>(weights, r)[i] = sqrtf(softplus_f32(l[chosen[i]])) / sum * p.route_scale;
  }
  if (margin) margin[r * margin_stride] = gap;
}

}  // namespace

void add_position_bias(const WeightRef& ape, int64_t ratio, const int64_t* positions, View score, Stream s) {
  if (score.rows == 0) return;
  position_bias_kernel<<<unsigned(score.rows), 256, 0, cudaStream_t(s)>>>(ape, ratio, positions, score);
  PLUMB_CUDA_LAUNCHED("position_bias");
}

void compress_pool(int64_t ratio, int64_t width, bool overlap, int64_t ring_rows, View kv_ring, View score_ring,
                   const int64_t* rows, int64_t count, View out, Stream s) {
  if (count == 0) return;
  compress_pool_kernel<<<unsigned(count), 128, 0, cudaStream_t(s)>>>(ratio, width, overlap, ring_rows, kv_ring,
                                                                     score_ring, rows, out, kernels::planted(kLastEntryDropped));
  PLUMB_CUDA_LAUNCHED("compress_pool");
}

int64_t indexer_scratch_floats(const IndexerArgs& p, int64_t rows) { return rows * p.rows_per_slot; }

void indexer_topk(const IndexerArgs& p, View q, View w, View index_rows, const int64_t* token_rows, View selected,
                  float* margin, int64_t margin_stride, float* scratch, Stream s) {
  if (q.rows == 0) return;
  int n2 = 1;
  while (n2 < p.rows_per_slot) n2 *= 2;
  if (n2 > kMaxSortEntries) fail("CUDA indexer: {} index rows per slot exceed the {} one query can rank", p.rows_per_slot, kMaxSortEntries);
  indexer_scores_kernel<<<unsigned(q.rows), 256, 0, cudaStream_t(s)>>>(p, q, w, index_rows, token_rows, scratch);
  PLUMB_CUDA_LAUNCHED("indexer_scores");
  const size_t smem = size_t(n2) * (sizeof(float) + sizeof(int32_t));
  if (smem > 48 * 1024)
    PLUMB_CUDA_CHECK(cudaFuncSetAttribute(indexer_select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  indexer_select_kernel<<<unsigned(q.rows), 512, smem, cudaStream_t(s)>>>(p, token_rows, scratch, selected, margin,
                                                                          margin_stride, n2);
  PLUMB_CUDA_LAUNCHED("indexer_select");
}

void attention(const AttentionArgs& p, View q, View ring, View compressed, const View* selected, const WeightRef& sinks,
               const int64_t* token_rows, View out, Stream s) {
  if (q.rows == 0) return;
  const size_t smem = size_t(2 * p.block + p.head_dim) * sizeof(float);
  const dim3 grid(unsigned(q.rows), unsigned(p.heads));
  attention_kernel<<<grid, 128, smem, cudaStream_t(s)>>>(p, q, ring, compressed, selected ? *selected : View{},
                                                         selected != nullptr, sinks, token_rows, out);
  PLUMB_CUDA_LAUNCHED("attention");
}

void route(const RouterArgs& p, View logits, const WeightRef& bias, const WeightRef& tid2eid, const int32_t* tokens,
           View ids, View weights, float* margin, int64_t margin_stride, Stream s) {
  PLUMB_CHECK(p.topk <= 16);
  if (logits.rows == 0) return;
  route_kernel<<<blocks_for(logits.rows, 64), 64, 0, cudaStream_t(s)>>>(p, logits, bias, tid2eid, tokens, ids, weights,
                                                                       margin, margin_stride, logits.rows);
  PLUMB_CUDA_LAUNCHED("route");
}

}  // namespace plumb::cuda::ops
