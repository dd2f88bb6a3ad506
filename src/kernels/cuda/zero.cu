#include <algorithm>
#include <cstdint>

#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/zero.h"

namespace plumb::cuda {
namespace {

// Grid-stride: 4-byte words when data and bytes are 4-aligned, else single bytes.
__global__ void zero_kernel(void* data, size_t bytes) {
  kernel_prologue();
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  if ((reinterpret_cast<uintptr_t>(data) | bytes) % 4 == 0) {
    auto* words = static_cast<uint32_t*>(data);
    for (size_t i = first; i < bytes / 4; i += stride) words[i] = 0;
  } else {
    auto* b = static_cast<uint8_t*>(data);
    for (size_t i = first; i < bytes; i += stride) b[i] = 0;
  }
}

}  // namespace

void zero_async(Stream s, void* data, size_t bytes) {
  if (bytes == 0) return;
  constexpr unsigned kThreads = 256;
  const size_t units = (reinterpret_cast<uintptr_t>(data) | bytes) % 4 == 0 ? bytes / 4 : bytes;
  const unsigned blocks = unsigned(std::min<size_t>((units + kThreads - 1) / kThreads, 1024));
  launch(s, "zero", zero_kernel, dim3(blocks), dim3(kThreads), 0, data, bytes);
}

}  // namespace plumb::cuda
