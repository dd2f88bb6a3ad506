#ifndef PLUMB_HAVE_CUDA
#include "base/error.h"
#include "kernels/cuda/synth.h"

namespace plumb::cuda {
double measure_copy_bandwidth() { fail("the CUDA copy bandwidth needs a plumb built with CUDA and a GPU"); }
std::vector<KernelCell> time_kernel_classes(const std::vector<int>&, int) {
  fail("the CUDA kernel classes need a plumb built with CUDA and a GPU");
}
}  // namespace plumb::cuda
#endif
