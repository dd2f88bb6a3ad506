// Routed FP4 experts on the GPU with the release numerics: activations quantized per 128 to e4m3; per K block of
// 32 one m16n8k32 MMA (e2m1 converts exactly to e4m3) gives the block's sum, promoted as
// acc += block * s_act * s_weight in fp32; w1/w3 outputs rounded to bf16, h = silu(min(g, L)) * clamp(u, -L, L)
// * routing weight in fp32 -> bf16, quantized, w2 the same way -> bf16; a row's experts summed in fp32 in ascending
// expert id, then the shared expert's output, rounded to bf16.
//
// The point of the design: rows routed to the same expert share one pass over its weights (a pass takes 8, 16 or
// 32 rows), so 16 rows on the same experts cost little more than one. Each row's arithmetic is the same whatever
// else shares its pass, so bits do not depend on the launch. Weights are uploaded once in a fragment-ordered layout
// (shuffle_fp4_matrix) so a warp streams 1 KiB of contiguous bytes per step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "kernels/cuda/launch.h"

namespace plumb::cuda {

// Bytes of a [rows, cols] FP4 matrix (cols values per row) after shuffle_fp4_matrix, codes and scales.
size_t fp4_shuffled_code_bytes(int64_t rows, int64_t cols);
size_t fp4_shuffled_scale_bytes(int64_t rows, int64_t cols);
// Host-side re-layout of one release-format FP4 matrix: codes [rows, cols/2] (two e2m1 per byte, low nibble first),
// scales [rows, cols/32] E8M0. rows a multiple of 16, cols of 128.
void shuffle_fp4_matrix(const uint8_t* codes, const uint8_t* scales, int64_t rows, int64_t cols, uint8_t* out_codes,
                        uint8_t* out_scales);
// Whether shuffle_fp4_matrix lays a lane's bytes out coalesced (fp4_lane_byte); the kernels read what it wrote.
bool fp4_coalesced_layout();

// Device arrays of device pointers, one entry per expert, to its matrices in shuffled layout: w1 and w3
// ([inter, hidden]) and w2 ([hidden, inter]), codes and scales.
struct Fp4ExpertsView {
  const uint8_t* const* w1_codes = nullptr;
  const uint8_t* const* w1_scales = nullptr;
  const uint8_t* const* w3_codes = nullptr;
  const uint8_t* const* w3_scales = nullptr;
  const uint8_t* const* w2_codes = nullptr;
  const uint8_t* const* w2_scales = nullptr;
  int64_t experts = 0, hidden = 0, inter = 0;
  float swiglu_limit = 0;  // 0: no clamp
};

struct ExpertRoutingView {
  const int32_t* ids = nullptr;    // [rows, top_k] expert ids
  const float* weights = nullptr;  // [rows, top_k] routing weights
  int32_t top_k = 0;
};

// Input rows (bf16 bits or float32 holding bf16 values), an optional shared-expert output to add (bf16 bits),
// and the output: bf16 bits, or float32 (rounded to bf16 or the float32 accumulator itself).
struct ExpertsIo {
  const void* x = nullptr;
  bool x_f32 = false;
  int64_t x_stride = 0;  // 0: hidden
  const uint16_t* shared = nullptr;
  void* y = nullptr;
  bool y_f32 = false;
  bool round_bf16 = true;
  // Backend::routed_experts_add: y (float32) = bf16(sum + addend), the sum unrounded, as Backend::add would make it
  // from the routed output; before_combine runs first (the backend joins its lanes there: addend is another lane's).
  const float* addend = nullptr;
  int64_t addend_stride = 0;
  std::function<void()> before_combine;
};

// Device scratch for a call with `rows` rows; zero it once with fp4_experts_workspace_init (calls keep its
// split arrival counters at zero).
size_t fp4_experts_workspace_bytes(const Fp4ExpertsView& w, int64_t rows, int32_t top_k);
void fp4_experts_workspace_init(void* workspace, const Fp4ExpertsView& w, Stream stream);

// y [rows, hidden] = sum over each row's experts (ascending id) + shared.
// rows_per_pass: 8, 16 or 32 rows share a weight pass (0: chosen by row count); every choice gives the same bits.
void fp4_experts(const Fp4ExpertsView& w, const ExpertsIo& io, int64_t rows, const ExpertRoutingView& routing,
                 void* workspace, int rows_per_pass, Stream stream);

// Device pointer tables for experts stored back to back (matrix e at base + e * stride): a helper for tests and
// synth. Returns a device buffer holding the six tables; `view` points into it.
struct Fp4ExpertTables;
void* make_fp4_expert_tables(const uint8_t* w13_codes, const uint8_t* w13_scales, const uint8_t* w2_codes,
                             const uint8_t* w2_scales, int64_t experts, int64_t hidden, int64_t inter,
                             Fp4ExpertsView& view);
void free_fp4_expert_tables(void* tables);

}  // namespace plumb::cuda
