// The CUDA half of `plumb synth` (ENGINE.md section 7): the device's measured copy bandwidth (the floor's
// denominator) and each dispatch class alone at release widths (FP8 dense linears, routed FP4 experts), timed as
// CUDA graphs with the weights rotated past the L2. The layers as served and the table are in bench/synth_*.
#pragma once

#include <string>
#include <vector>

namespace plumb::cuda {

// Bytes read plus bytes written per second of a 2 GiB device-to-device SM copy. Throws without a device.
double measure_copy_bandwidth();

struct KernelCell {
  std::string cls, shape;
  int rows = 0;
  double seconds = 0;  // median per call
  double bytes = 0;    // weight bytes one call reads
};

// The kernel classes at each row count: `repeats` calls per CUDA graph, the median of 5 replays per call.
std::vector<KernelCell> time_kernel_classes(const std::vector<int>& rows, int repeats);

}  // namespace plumb::cuda
