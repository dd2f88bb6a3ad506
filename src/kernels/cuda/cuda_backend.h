// The CUDA backend: kernels::Backend on one GPU with the release numerics. Weights live in device memory in their
// release formats (FP4 experts re-laid in fragment order once, at upload); activations are float32 tensors holding
// the release's values, like the CPU backend's, so the model's forward runs unchanged. Ops launch on the default
// stream in order; per-call row metadata (positions, slots, tokens) is staged to device memory.
#pragma once

#include <memory>

#include "kernels/backend.h"

namespace plumb::kernels {

// Throws plumb::Error when plumb was built without CUDA or no device answers.
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace plumb::kernels
