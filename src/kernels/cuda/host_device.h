// PLUMB_HOST_DEVICE: a function that the kernels and the host tests both compile, so a test runs the GPU's code.
#pragma once

#if defined(__CUDACC__)
#define PLUMB_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define PLUMB_HOST_DEVICE inline
#endif
