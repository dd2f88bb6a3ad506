// A threaded memcpy timed alone, in chunks large enough that the hand-off costs nothing next to the copy.
#include "bench/host_bandwidth.h"

#include <chrono>
#include <cstring>
#include <vector>

#include "base/huge_buffer.h"
#include "base/thread_pool.h"
#include "bench/stats.h"

namespace plumb::bench {

double measure_host_copy_bandwidth(size_t bytes) {
  constexpr size_t kChunk = size_t(8) << 20;
  const HugeBuffer src(bytes), dst(bytes);
  // Page faults on first touch would be timed otherwise.
  parallel_for_chunks(bytes, kChunk, [&](size_t begin, size_t end) {
    std::memset(src.data() + begin, 1, end - begin);
    std::memset(dst.data() + begin, 0, end - begin);
  });
  std::vector<double> seconds;
  for (int trial = 0; trial < 5; ++trial) {
    const auto t0 = std::chrono::steady_clock::now();
    parallel_for_chunks(bytes, kChunk, [&](size_t begin, size_t end) {
      std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
    });
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * double(bytes) / *median(seconds);
}

}  // namespace plumb::bench
