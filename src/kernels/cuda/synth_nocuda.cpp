#ifndef PLUMB_HAVE_CUDA
#include "base/error.h"
#include "kernels/cuda/synth.h"

namespace plumb::cuda {
int run_synth(const SynthOptions&) { fail("plumb synth needs a plumb built with CUDA and a GPU"); }
}  // namespace plumb::cuda
#endif
