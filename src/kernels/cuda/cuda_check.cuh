// CUDA error checks that say which statement failed, where, and on which device.
#pragma once

#include <cuda_runtime.h>

#include "base/error.h"

namespace plumb::cuda {

[[noreturn]] inline void cuda_failure(cudaError_t err, const char* what, const char* file, int line) {
  int device = -1;
  cudaGetDevice(&device);
  fail("CUDA error {} ({}) in {} at {}:{} on device {}", cudaGetErrorName(err), cudaGetErrorString(err), what, file,
       line, device);
}

#define PLUMB_CUDA_CHECK(stmt)                                                          \
  do {                                                                                  \
    const cudaError_t plumb_err_ = (stmt);                                              \
    if (plumb_err_ != cudaSuccess) ::plumb::cuda::cuda_failure(plumb_err_, #stmt, __FILE__, __LINE__); \
  } while (0)

// After a launch: a bad configuration shows here, a fault at the next synchronisation.
#define PLUMB_CUDA_LAUNCHED(name) PLUMB_CUDA_CHECK(cudaPeekAtLastError())

}  // namespace plumb::cuda
