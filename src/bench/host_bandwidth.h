// The host's memory copy bandwidth, the floor's denominator for the CPU backend, counted as the CUDA one is: bytes
// read plus bytes written per second of a large copy, here spread over the thread pool the CPU ops run on.
#pragma once

#include <cstddef>

namespace plumb::bench {

// Copies `bytes` between two buffers (both touched first) on the default thread pool; the median of 5 copies.
double measure_host_copy_bandwidth(size_t bytes = size_t(1) << 30);

}  // namespace plumb::bench
