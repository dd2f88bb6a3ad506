// How `plumb synth` times a kernel class (CUDA only): `repeats` calls captured into one CUDA graph and replayed, or
// recorded into a LaunchQueue and replayed as a served round is (programmatic edges between the kernels). Both
// return the median of 5 timed replays, in seconds per call, after at least 30 ms of warm-up replays.
#pragma once

#include <cuda_runtime.h>

#include <functional>

#include "kernels/cuda/launch.h"

namespace plumb::cuda {

// A plain graph: each kernel starts when the one before has finished.
double time_graph(const std::function<void(int, cudaStream_t)>& call, int repeats, cudaStream_t stream);

// A LaunchQueue's graph: each kernel may start while the one before finishes (PLUMB_CUDA_PDL), as in a round.
double time_queue(const std::function<void(int, Stream)>& call, int repeats);

}  // namespace plumb::cuda
