// A recorded launch as a CUDA graph kernel node's parameters (for the launch queue's graphs and the kernel timer).
#pragma once

#include <cuda_runtime.h>

#include "kernels/cuda/launch_tape.h"

namespace plumb::cuda {

inline cudaKernelNodeParams kernel_node_params(const LaunchTape::Entry& e, void* const* args) {
  cudaKernelNodeParams p{};
  p.func = const_cast<void*>(e.func);
  p.gridDim = dim3(e.grid.x, e.grid.y, e.grid.z);
  p.blockDim = dim3(e.block.x, e.block.y, e.block.z);
  p.sharedMemBytes = unsigned(e.shared_bytes);
  p.kernelParams = const_cast<void**>(args);
  return p;
}

}  // namespace plumb::cuda
