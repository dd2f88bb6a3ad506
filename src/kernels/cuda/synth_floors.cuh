// What `plumb synth` prints beside the kernel classes so their times can be read against what one launch can do at
// all on this device: a bare read of a class's bytes (the reachable floor, next to the copy-bandwidth floor), and
// what a launch costs in a chain of dependent launches, empty and as a one-row glue kernel (rms_norm).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "kernels/cuda/synth.h"

namespace plumb::cuda {

struct FloorRead {
  const char* shape;  // whose bytes, e.g. "wq_b 32768x1024"
  double bytes;
};

// Appends to `table`: "read only" for each entry (the bytes rotated past the L2 like the classes' weights), then
// "launch chain" and "rms_norm chain" (seconds per launch), each as a plain graph and through a LaunchQueue.
void time_floor_classes(const std::vector<FloorRead>& reads, int repeats, cudaStream_t stream,
                        std::vector<KernelCell>& table);

}  // namespace plumb::cuda
