// The attention sublayer (dsv4-forward.md section 7, order of section 11.3): query path, window K=V into the ring,
// the compressor (and for CSA the lightning indexer with its own compressor), sparse attention with sinks, inverse
// RoPE, grouped wo_a and wo_b, wrapped in mHC pre/post.
#include <cmath>
#include <numeric>
#include <utility>

#include "base/error.h"
#include "model/dsv4/forward.h"

namespace plumb::dsv4 {
namespace {

using kernels::LinearParams;
using kernels::Tensor;

constexpr LinearParams kFp8Linear{.quantize_input = true};  // release: FP8 activations before FP8 weights
constexpr int64_t kKvSimBlock = 64;                          // FP8 rounding block of KV nope dims
constexpr int64_t kIndexSimBlock = 32;                       // FP4 rounding block of indexer vectors

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t(0));
  return v;
}

}  // namespace

void Forward::compress(const BlockSpec& spec, bool indexer, const CompressorWeights& w, CompressorState& st,
                       const LaunchRows& rows, const Tensor& x, Workspace& ws) {
  const int64_t r = spec.compress_ratio, n = rows.size();
  const int64_t width = indexer ? config_.index_head_dim : config_.head_dim;
  const bool overlap = spec.attention == AttentionKind::csa;
  const kernels::CompressParams p{.ratio = r,
                                  .width = width,
                                  .overlap = overlap,
                                  .ring_rows = state_.shape().compressor_ring_rows(r)};
  const Tensor kv = ws.act(n, (overlap ? 2 : 1) * width), score = ws.act(n, (overlap ? 2 : 1) * width);
  backend_.compress_project(p, w, rows.positions, x, kv, score);
  std::vector<int64_t> ring_rows;
  std::vector<kernels::CompressRow> emit;
  std::vector<int64_t> emit_positions, emit_rows;
  for (const auto& row : rows.rows) {
    ring_rows.push_back(state_.compressor_row(row.slot, row.position, r));
    if ((row.position + 1) % r != 0) continue;
    const int64_t group = (row.position + 1) / r - 1;
    emit.push_back({row.slot, group});
    emit_positions.push_back(group * r);  // a compressed row rotates at its group's first position
    emit_rows.push_back(state_.compressed_row(row.slot, group, r));
  }
  backend_.copy_rows(kv, iota(n), st.kv, ring_rows);
  backend_.copy_rows(score, iota(n), st.score, ring_rows);
  if (emit.empty()) return;

  const int64_t m = int64_t(emit.size());
  const Tensor pooled = ws.act(m, width), normed = ws.act(m, width);
  backend_.compress_pool(p, st.kv, st.score, emit, pooled);
  backend_.rms_norm({config_.rms_norm_eps}, w.norm, pooled, normed);
  backend_.rope(rope_params(spec, width), emit_positions, normed);
  if (indexer) {
    backend_.hadamard({width}, normed);
    backend_.quant_sim({kernels::SimFormat::fp4_e2m1, kIndexSimBlock, 0, width}, normed);
  } else {
    backend_.quant_sim({kernels::SimFormat::fp8_e4m3, kKvSimBlock, 0, width - config_.rope_head_dim}, normed);
  }
  backend_.copy_rows(normed, iota(m), st.rows, emit_rows);
}

void Forward::attention(int64_t b, const LaunchRows& rows, Tensor& x, Tensor& spare) {
  Workspace ws(scratch_);
  const BlockSpec& spec = config_.blocks[size_t(b)];
  const BlockWeights& w = weights_.blocks[size_t(b)];
  BlockState& st = state_.block(b);
  const int64_t n = rows.size(), d = config_.hidden_size, hc = config_.hc_mult;
  const int64_t heads = config_.num_heads, hd = config_.head_dim;
  const double eps = config_.rms_norm_eps;

  const Tensor y = ws.act(n, d), post = ws.act(n, hc), comb = ws.act(n, hc * hc), xn = ws.act(n, d);
  backend_.hc_pre_norm(hc_params(), w.hc_attn, {eps}, w.attn_norm, x, y, xn, post, comb);

  // Independent chains from xn, which a device may run side by side (Backend::begin_lane): the window key on lane 1,
  // the compressor on lane 3, for CSA the indexer's head weights and compressor on lane 4 and, once qr is there, its
  // query on lane 2; the query on lane 0. Each chain writes only its own tensors and state; the indexer's top-k and
  // attention read them after the join.
  const kernels::RopeParams rope = rope_params(spec, hd);
  {
    // Window key = value: normalized, rotated, nope dims rounded through FP8, into the ring at the row's position.
    const kernels::OnLane lane(backend_, 1);
    const Tensor kv = ws.act(n, hd), kvn = ws.act(n, hd);
    backend_.linear(kFp8Linear, w.attn.wkv, xn, kv);
    backend_.rms_norm({eps}, w.attn.kv_norm, kv, kvn);
    backend_.rope(rope, rows.positions, kvn);
    backend_.quant_sim({kernels::SimFormat::fp8_e4m3, kKvSimBlock, 0, hd - config_.rope_head_dim}, kvn);
    std::vector<int64_t> window_rows;
    for (const auto& row : rows.rows) window_rows.push_back(state_.window_row(row.slot, row.position));
    backend_.copy_rows(kvn, iota(n), st.window, window_rows);
  }
  if (spec.compress_ratio > 0) {
    const kernels::OnLane lane(backend_, 3);
    compress(spec, false, w.attn.compressor, st.compressor, rows, xn, ws);
  }

  // Lightning indexer (CSA): its head weights from xn and its own compressor, then (below) its query from qr.
  const bool csa = spec.attention == AttentionKind::csa;
  const int64_t ih = config_.index_n_heads, ihd = config_.index_head_dim;
  Tensor iq, iw;
  if (csa) {
    iq = ws.act(n, ih * ihd);
    iw = ws.act(n, ih);
    const kernels::OnLane lane(backend_, 4);
    const double weight_scale = 1.0 / std::sqrt(double(ihd)) / std::sqrt(double(ih));
    backend_.linear({.output_scale = weight_scale}, w.attn.index_weights_proj, xn, iw);
    compress(spec, true, w.attn.index_compressor, st.indexer, rows, xn, ws);
  }

  // Query: low-rank, normalized per head, rotated at the row's position.
  const Tensor qa = ws.act(n, config_.q_lora_rank), qr = ws.act(n, config_.q_lora_rank), q = ws.act(n, heads * hd);
  backend_.linear(kFp8Linear, w.attn.wq_a, xn, qa);
  backend_.rms_norm({eps}, w.attn.q_norm, qa, qr);
  if (csa) {
    const kernels::OnLane lane(backend_, 2);
    backend_.linear(kFp8Linear, w.attn.index_wq_b, qr, iq);
    backend_.rope(rope_params(spec, ihd), rows.positions, iq);
    backend_.hadamard({ihd}, iq);
    backend_.quant_sim({kernels::SimFormat::fp4_e2m1, kIndexSimBlock, 0, ih * ihd}, iq);
  }
  backend_.linear(kFp8Linear, w.attn.wq_b, qr, q);
  backend_.head_rms_norm_rope({heads, hd, eps}, rope, rows.positions, q);
  backend_.join_lanes();

  const Tensor* selected = nullptr;
  Tensor selection, indexer_margin;
  if (csa) {
    selection = ws.i32(n, config_.index_topk);
    indexer_margin = ws.act(n, 1);
    backend_.indexer_topk({.heads = ih,
                           .head_dim = ihd,
                           .topk = config_.index_topk,
                           .ratio = spec.compress_ratio,
                           .rows_per_slot = state_.shape().compressed_rows(spec.compress_ratio)},
                          iq, iw, st.indexer.rows, rows.rows, selection, &indexer_margin);
    selected = &selection;
    record(&selection, &indexer_margin, nullptr, nullptr, n);
  }

  const Tensor o = ws.act(n, heads * hd);
  const kernels::AttentionParams ap{
      .heads = heads,
      .head_dim = hd,
      .softmax_scale = 1.0 / std::sqrt(double(hd)),
      .window = config_.sliding_window,
      .ring_rows = state_.shape().window_ring_rows(),
      .compress_ratio = spec.compress_ratio,
      .compressed_rows_per_slot = spec.compress_ratio > 0 ? state_.shape().compressed_rows(spec.compress_ratio) : 0};
  // Values carry their own positions' rotation: the output's rope dims are rotated back by the query's position.
  kernels::RopeParams inverse = rope;
  inverse.inverse = true;
  backend_.attention_rope(ap, inverse, q, st.window, st.compressor.rows, selected, w.attn.sinks, rows.rows, o);

  const Tensor oa = ws.act(n, config_.o_groups * config_.o_lora_rank), f = ws.act(n, d);
  backend_.linear({.groups = config_.o_groups}, w.attn.wo_a, o, oa);
  backend_.linear(kFp8Linear, w.attn.wo_b, oa, f);
  backend_.hc_post(hc_params(), f, x, post, comb, spare);
  std::swap(x, spare);
}

}  // namespace plumb::dsv4
