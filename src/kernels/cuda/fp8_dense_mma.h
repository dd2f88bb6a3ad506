// The dense linear with FP8 weights and unquantized (bf16-valued) activations on the matrix unit: dense_linear's
// path for the grouped wo_a (fp8_dense_mma.cu says how each row's sums are fixed).
#pragma once

#include <cstdint>

#include "kernels/cuda/ops_cuda.h"

namespace plumb::cuda::ops {

// Whether the kernel takes these weights: FP8 blocks, K a multiple of 128, each group's features a multiple of 16.
// The answer depends on the shapes alone, so every row count of a weight runs the same arithmetic.
bool fp8_dense_mma_takes(const WeightRef& w, int64_t groups);
// y = W x as dense_linear (ops_cuda.h); x's values must be bf16 (the matrix unit reads them as tf32).
void fp8_dense_mma(const WeightRef& w, int64_t groups, View x, View y, bool round_bf16, float output_scale, Stream s);

}  // namespace plumb::cuda::ops
