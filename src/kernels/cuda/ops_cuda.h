// Launchers of the CUDA backend's ops (cuda_backend.h): plain C++17 declarations over raw device pointers, so the
// .cu files stay C++17 while the backend class (C++20) calls them. Each launcher's semantics are its op's in
// kernels/backend.h with the release numerics (dsv4-forward.md section 10); each computes a row from that row's
// inputs alone with every reduction in an order fixed by the shapes.
#pragma once

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/launch.h"

namespace plumb::cuda::ops {

// WeightRef::format: kernels::WeightFormat's values (cuda_backend.cpp checks they agree), for the C++17 .cu files.
enum WeightCode : int { kFp8Blocks = 0, kFp4Blocks = 1, kBf16 = 2, kF32 = 3, kI64 = 4 };

// A weight where the GPU can read it.
struct WeightRef {
  int format = kBf16;
  const void* data = nullptr;
  const uint8_t* scales = nullptr;
  int64_t rows = 0, cols = 0, scale_cols = 0;
};

// A 2-D float32 (or int32) activation view.
struct View {
  void* data = nullptr;
  int64_t rows = 0, cols = 0, stride = 0;
};

// y = W x without activation quantization (bf16 or fp8 weights; grouped when groups > 1); the float32 dot product
// rounded to bf16 (round_bf16) or kept, then times output_scale (rounded again).
void dense_linear(const WeightRef& w, int64_t groups, View x, View y, bool round_bf16, float output_scale, Stream s);
void embed(const WeightRef& table, const int32_t* tokens, int64_t copies, View out, Stream s);
void rms_norm(const WeightRef& w, double eps, View x, View y, Stream s);
// The rotation a fused head norm applies to each head after normalizing it (as rope below does).
struct HeadRope {
  int64_t rope_dims = 0;
  bool inverse = false;
  const float* freqs = nullptr;        // device float32 [rope_dims / 2]
  const int64_t* positions = nullptr;  // device int64 [rows]
};
// rope: null, or each head's rope dims rotated after its norm (one launch for Backend::head_rms_norm_rope).
void head_rms_norm(int64_t heads, int64_t head_dim, double eps, View x, Stream s, const HeadRope* rope = nullptr);
// freqs: device float32 [rope_dims / 2]; positions: device int64 [rows].
void rope(int64_t head_dim, int64_t rope_dims, bool inverse, const float* freqs, const int64_t* positions, View x, Stream s);
// format 0: e4m3, 1: e2m1.
void quant_sim(int format, int64_t block, int64_t col_begin, int64_t col_end, View x, Stream s);
void hadamard(int64_t size, View x, Stream s);
void add(View a, View b, View out, Stream s);
// out = bf16(silu(min(a, L)) * clamp(b, -L, L) * 1) elementwise (no clamp when limit <= 0).
void swiglu(View a, View b, float limit, View out, Stream s);
// dst row dst_rows[i] = src row src_rows[i]; element_bytes per element (4 for f32 / i32).
void copy_rows(View src, const int64_t* src_rows, View dst, const int64_t* dst_rows, int64_t count, int element_bytes, Stream s);

struct HcArgs {
  int64_t hc_mult, hidden, sinkhorn_iters;
  double hc_eps, norm_eps;
  bool comb_transposed = false;  // planted control: hc_post reads comb destination-major
  bool rms_over_first_stream = false;  // planted control: hc_pre / hc_head take the input RMS over stream 0 only
};
// The RMSNorm hc_pre applies to its collapsed input in the same launch (Backend::hc_pre_norm): xn = rms_norm(w,
// eps, y), as rms_norm above makes it.
struct HcNorm {
  WeightRef w;
  double eps = 0;
  View xn;
  bool first_warp_only = false;  // planted control: the mean square of the first warp's values only
};
// Whether hc_pre can norm in its launch: its threads hold the streams (up to 4 of up to 4096 values).
bool hc_pre_can_norm(const HcArgs& p);
// scratch: device float32 [hc_scratch_floats(rows)] for the mixes. norm: null, or hc_pre_can_norm(p).
int64_t hc_scratch_floats(int64_t rows);
void hc_pre(const HcArgs& p, const WeightRef& fn, const WeightRef& base, const WeightRef& scale, View x, View y,
            View post, View comb, float* scratch, Stream s, const HcNorm* norm = nullptr);
void hc_post(const HcArgs& p, View f, View x, View post, View comb, View out, Stream s);
void hc_head(const HcArgs& p, const WeightRef& fn, const WeightRef& base, const WeightRef& scale, View x, View y,
             float* scratch, Stream s);

// score[r] += ape[positions[r] mod ratio] (float32).
void add_position_bias(const WeightRef& ape, int64_t ratio, const int64_t* positions, View score, Stream s);
// rows: device int64 pairs (slot, group) [count].
void compress_pool(int64_t ratio, int64_t width, bool overlap, int64_t ring_rows, View kv_ring, View score_ring,
                   const int64_t* rows, int64_t count, View out, Stream s);

struct IndexerArgs {
  int64_t heads, head_dim, topk, ratio, rows_per_slot;
  bool relu_dropped = false;  // planted control: head logits summed without the relu
};
// token_rows: device int64 pairs (slot, position) [q.rows]; margin may be null.
void indexer_topk(const IndexerArgs& p, View q, View w, View index_rows, const int64_t* token_rows, View selected,
                  float* margin, int64_t margin_stride, float* scratch, Stream s);
// Scratch floats indexer_topk needs.
int64_t indexer_scratch_floats(const IndexerArgs& p, int64_t rows);

struct AttentionArgs {
  int64_t heads, head_dim;
  float softmax_scale;
  int64_t window, ring_rows, compress_ratio, compressed_rows_per_slot, block;
  bool sink_left_out = false, padding_reads_row_0 = false;  // planted controls
  // Backend::attention_rope: the output's last out_rope_dims channels of each head rotated (as rope does) by the
  // row's position; none when out_rope_freqs is null (device float32 [out_rope_dims / 2]).
  const float* out_rope_freqs = nullptr;
  int64_t out_rope_dims = 0;
  bool out_rope_inverse = false;
};
// A row's attention entries: the window, then the indexer's selected rows (selected_cols of them) or every
// compressed row up to its position. The kernels walk this many; the host sizes the logits scratch by it.
PLUMB_HOST_DEVICE int64_t attention_entries(const AttentionArgs& p, bool has_selected, int64_t selected_cols,
                                            int64_t position) {
  int64_t compressed = 0;
  if (p.compress_ratio > 0) compressed = has_selected ? selected_cols : (position + 1) / p.compress_ratio;
  return p.window + compressed;
}
// max_entries: at least every row's attention_entries; scratch: device float32
// [attention_scratch_floats(p, q.rows, max_entries)] for the logits.
void attention(const AttentionArgs& p, View q, View ring, View compressed, const View* selected,
               const WeightRef& sinks, const int64_t* token_rows, int64_t max_entries, View out, float* scratch,
               Stream s);
int64_t attention_scratch_floats(const AttentionArgs& p, int64_t rows, int64_t max_entries);

struct RouterArgs {
  int64_t experts, topk;
  float route_scale;
  bool hash;
};
// logits: [rows, experts] float32 (the gate's output); tokens: device int32 [rows], staged by the launch queue (the
// hash path reads them before the PDL wait, dependent_launch.cuh).
void route(const RouterArgs& p, View logits, const WeightRef& bias, const WeightRef& tid2eid, const int32_t* tokens,
           View ids, View weights, float* margin, int64_t margin_stride, Stream s);

}  // namespace plumb::cuda::ops
