// FP8 linear on the GPU with the release numerics (DSV4.md section 4): activations quantized per row in blocks
// of 128 along K to e4m3 with a power-of-two scale; per 128-block the e4m3 products are summed by the matrix unit
// (mma.sync m16n8k32, four per block), then promoted: acc += block * (s_act * s_weight) in fp32; output bf16.
//
// Row invariance: output features are the MMA's M, rows its N; every row, whatever its neighbours or the row
// count, goes through the same instructions in the same K order, and K is split into a number of pieces fixed by
// the weight's shape (never by the row count), summed in ascending order. Padding rows are computed, never written.
// Plain C++ header: device pointers are passed as plain pointers; `stream` is a Stream (a CUDA stream or a
// LaunchQueue, see launch.h; nullptr: the default stream).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/launch.h"

namespace plumb::cuda {

struct Fp8WeightView {
  const uint8_t* codes = nullptr;   // e4m3 [n, k], row-major
  const uint8_t* scales = nullptr;  // E8M0 [ceil(n/128), ceil(k/128)]
  int64_t n = 0, k = 0;             // n a multiple of 16, k a multiple of 128
};

// How many pieces K is split into for this shape (a function of the shape alone).
int fp8_linear_splits(int64_t n, int64_t k);
// Device scratch a call with `rows` rows needs (arrival counters, quantized activations, partials). Zero it once with
// fp8_linear_workspace_init before the first call; every call leaves the counters at zero again.
size_t fp8_linear_workspace_bytes(int64_t n, int64_t k, int64_t rows);
void fp8_linear_workspace_init(void* workspace, int64_t n, Stream stream);

// Quantizes activations x [rows, k] (bf16 bits) per 128 to e4m3 codes [rows, k] and float scales [rows, k/128]
// (the routed experts' hidden rows). Every quantization of activations runs quantize_block_128 (mma_fp8.cuh).
void act_quant_e4m3(const uint16_t* x, int64_t rows, int64_t k, uint8_t* codes, float* scales, Stream stream);

// Where a linear reads and writes: bf16 bits or float32, with row strides (0: packed). The output is
// round(round(acc) * output_scale) with round = bf16 rounding when round_bf16, else the float32 accumulator.
struct LinearIo {
  const void* x = nullptr;
  bool x_f32 = false;
  int64_t x_stride = 0;
  void* y = nullptr;
  bool y_f32 = false;
  int64_t y_stride = 0;
  bool round_bf16 = true;
  float output_scale = 1.0f;
  unsigned* arrivals = nullptr;  // split arrival counters (n / 16, zero between calls); null: the workspace's own
};

// Where the activations are quantized: automatic picks by shape and row count; separate runs a quantization kernel
// first, in_linear has each block of the linear quantize the rows it needs (one launch, 8-row passes only).
enum class Fp8Quantize { automatic, separate, in_linear };

// y [rows, n] (bf16) = W x: the activations quantized (see Fp8Quantize), then a GEMM kernel in which the last of a
// feature tile's K splits to finish sums the splits' partials in ascending order.
// `rows_per_pass` picks the variant (8, 16 or 32 rows share each weight load; 0 picks by row count); every
// variant gives the same bits.
void fp8_linear(const Fp8WeightView& w, const uint16_t* x, int64_t rows, uint16_t* y, void* workspace,
                int rows_per_pass, Stream stream, Fp8Quantize quantize = Fp8Quantize::automatic);
void fp8_linear(const Fp8WeightView& w, const LinearIo& io, int64_t rows, void* workspace, int rows_per_pass,
                Stream stream, Fp8Quantize quantize = Fp8Quantize::automatic);
// Two linears of one input (the shared expert's w1 and w3), each with its own workspace and arrival counters: one
// launch where both take the one-launch kernel (up to 16 rows, the same K split), else two fp8_linear calls. The bits
// are each linear's own either way.
void fp8_linear_pair(const Fp8WeightView& w1, const LinearIo& io1, void* workspace1, const Fp8WeightView& w2,
                     const LinearIo& io2, void* workspace2, int64_t rows, Stream stream);

}  // namespace plumb::cuda
