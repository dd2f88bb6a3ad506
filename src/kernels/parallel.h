// How host backends cut work across threads: fixed-size chunks of independent items (rows, output columns, experts),
// each writing only its own outputs, so results never depend on the thread count (ENGINE.md section 1).
#pragma once

#include <cstdint>
#include <functional>

#include "base/thread_pool.h"

namespace plumb::kernels {

inline void parallel_chunks(int64_t n, int64_t chunk, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (n <= chunk) {  // one chunk: skip the pool's hand-off
    fn(0, n);
    return;
  }
  parallel_for_chunks(size_t(n), size_t(chunk), [&](size_t begin, size_t end) { fn(int64_t(begin), int64_t(end)); });
}

}  // namespace plumb::kernels
