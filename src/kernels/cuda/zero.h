// Zeroing device memory through launch() (launch.cuh), so that it can be recorded in a LaunchQueue like any other
// kernel, where cudaMemsetAsync could not be. Plain C++17 header without CUDA types.
#pragma once

#include <cstddef>

#include "kernels/cuda/launch.h"

namespace plumb::cuda {

// Sets `bytes` bytes at device pointer `data` to zero, in order on `s`.
void zero_async(Stream s, void* data, size_t bytes);

}  // namespace plumb::cuda
