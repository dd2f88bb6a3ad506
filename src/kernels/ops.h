// Parameters, weight groups and per-row metadata of the ops in backend.h. Each op takes its params struct by value,
// tensor views with explicit shapes, and the metadata of its rows (slot, position) explicitly: no op reads model
// state it was not handed, so every op can run standalone at any shape.
//
// Row invariance (ENGINE.md section 1): every op computes each output row from that row's inputs, the weights and
// its own slot's state rows alone, with reductions in an order fixed by the shapes (never by the number of rows in
// the launch or of threads).
#pragma once

#include <cstdint>

#include "kernels/tensor.h"

namespace plumb::kernels {

// The two numerics a backend can implement (dsv4-forward.md section 0, section 10).
enum class Numerics : uint8_t {
  oracle,   // float64, weights decoded exactly, no rounding, no activation quantization, no KV/indexer simulation
  release,  // the release's roundings: FP8/FP4 activation quantization, bf16 storage points, fp32 elsewhere
};
const char* numerics_name(Numerics numerics);

// How the release stores an op's output (the oracle never rounds).
enum class Rounding : uint8_t { bf16, f32 };

// One row of a launch: which slot's state it reads and writes, and its absolute position.
struct TokenRow {
  int32_t slot = 0;
  int64_t position = 0;
};

// ---- linear ----
// y[n, o] = sum_k W[o, k] x[n, k]. With groups g > 1 the weight is block-diagonal: output rows [i*O/g, (i+1)*O/g)
// read input columns [i*K/g, (i+1)*K/g) (the grouped wo_a).
struct LinearParams {
  int64_t groups = 1;
  bool quantize_input = false;        // release: FP8 activation quantization per 128 along K, promotion per block
  Rounding output = Rounding::bf16;   // release output storage
  double output_scale = 1.0;          // y = out(out(W x) * output_scale) (the indexer's head weights)
};

// ---- norms ----
struct RmsNormParams {
  double eps = 1e-6;  // y = w * x / sqrt(mean(x^2) + eps)
};
// Unweighted RMS norm of each head of q, computed by the release with bf16 tensor ops.
struct HeadNormParams {
  int64_t heads = 0, head_dim = 0;
  double eps = 1e-6;
};

// ---- rotary embedding ----
// Interleaved pairs on the last rope_dims of each head_dim-wide head, angle position * f_k, optional YaRN.
struct RopeParams {
  int64_t head_dim = 0;    // columns per head; the row holds cols / head_dim heads
  int64_t rope_dims = 0;   // rotated dims: the last rope_dims of each head
  double theta = 10000.0;
  double yarn_factor = 1.0;
  int64_t yarn_original = 0;  // original_seq_len; 0 = no YaRN
  double beta_fast = 32.0, beta_slow = 1.0;
  bool inverse = false;       // rotate by -angle (attention output)
};

// ---- simulated quantization (release only; the oracle leaves values as they are) ----
enum class SimFormat : uint8_t { fp8_e4m3, fp4_e2m1 };
struct QuantSimParams {
  SimFormat format = SimFormat::fp8_e4m3;
  int64_t block = 64;                  // values sharing one power-of-two scale
  int64_t col_begin = 0, col_end = 0;  // columns of each row to round, a multiple of block wide
};
// Sylvester Hadamard transform scaled by size^-1/2 on each consecutive `size` columns.
struct HadamardParams {
  int64_t size = 128;
};

// ---- mHC ----
struct HcParams {
  int64_t hc_mult = 4, hidden = 0;
  int64_t sinkhorn_iters = 20;
  double hc_eps = 1e-6, norm_eps = 1e-6;
};
struct HcWeights {
  Weight fn;     // f32 [mixes, hc_mult * hidden]: mixes = (2 + hc) * hc for hc_pre, hc for the head
  Weight base;   // f32 [1, mixes]
  Weight scale;  // f32 [1, 3] for hc_pre, [1, 1] for the head
};

// ---- compressor (CSA overlapping, HCA) ----
// State: per-token projections K (kv) and Z (score, position bias included) in two rings of `ring_rows` rows per
// slot, token p of slot s at row s * ring_rows + p mod ring_rows; each row is (overlap ? 2 : 1) * width wide.
struct CompressParams {
  int64_t ratio = 0, width = 0;
  bool overlap = false;   // ratio 4: row j pools group j-1's first half and group j's second half
  int64_t ring_rows = 0;  // per slot
};
struct CompressorWeights {
  Weight wkv, wgate;  // bf16 [(overlap ? 2 : 1) * width, hidden]
  Weight ape;         // f32 [ratio, (overlap ? 2 : 1) * width]
  Weight norm;        // bf16 [1, width]
};
// A compressed row to emit: group `group` of the slot, complete.
struct CompressRow {
  int32_t slot = 0;
  int64_t group = 0;
};

// ---- lightning indexer ----
// Index rows of slot s: rows [s * rows_per_slot, ...), row j summarizing group j; query at position p sees rows
// j < (p + 1) / ratio and selects the top min(topk, visible) by score (descending, ties by ascending row, NaN last).
struct IndexerParams {
  int64_t heads = 0, head_dim = 0, topk = 0, ratio = 4;
  int64_t rows_per_slot = 0;
};

// ---- sparse attention with sinks ----
// Keys = values = rows of the window ring (slot s, position p at row s * ring_rows + p mod ring_rows; the query at
// position i sees positions max(0, i - window + 1) .. i) plus compressed rows (slot s's row j at
// s * compressed_rows_per_slot + j): all visible ones (compress_ratio > 0 and no selection) or the indexer's
// selection. The release's online softmax runs over blocks of `block` entries of the index list
// [window part padded to `window` entries, then compressed entries].
struct AttentionParams {
  int64_t heads = 0, head_dim = 0;
  double softmax_scale = 0.0;
  int64_t window = 0, ring_rows = 0;
  int64_t compress_ratio = 0;  // 0: window only
  int64_t compressed_rows_per_slot = 0;
  int64_t block = 64;
};

// ---- MoE ----
struct RouterParams {
  int64_t experts = 0, topk = 0;
  double route_scale = 1.0;
  bool hash = false;  // experts from tid2eid[token] instead of the top-k of score + bias
};
struct RouterWeights {
  Weight gate;     // bf16 [experts, hidden]
  Weight bias;     // f32 [1, experts] (score-routed)
  Weight tid2eid;  // i64 [vocab, topk] (hash-routed)
};
struct ExpertParams {
  int64_t hidden = 0, inter = 0;
  double swiglu_limit = 0.0;  // > 0: up clamped to +-limit, gate to <= limit (routed experts only)
};
struct ExpertWeights {
  Weight w1, w2, w3;  // gate [inter, hidden], down [hidden, inter], up [inter, hidden]
};

}  // namespace plumb::kernels
