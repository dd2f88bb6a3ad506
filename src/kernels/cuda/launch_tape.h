// The launches a LaunchQueue recorded since its last flush, with copies of their argument bytes, and the
// comparisons a graph cache needs: the same kernels in the same shapes (one graph serves both tapes) and, per
// launch, the same argument bytes (the graph's node needs no update). Plain C++: tested on any machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cuda/launch.h"

namespace plumb::cuda {

class LaunchTape {
 public:
  struct Entry {
    const void* func = nullptr;
    Dim3 grid, block;
    size_t shared_bytes = 0;
    uint32_t first_arg = 0, arg_count = 0;  // into the tape's argument lists
    const char* name = "";
  };

  void record(const KernelCall& call);
  void clear();

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const Entry& entry(size_t i) const { return entries_[i]; }
  // Pointers to entry i's argument bytes, as cudaLaunchKernel and kernel nodes take them (valid until the next record).
  void* const* args(size_t i);

  // Same kernels, grids, blocks, shared bytes and argument sizes, in the same order.
  bool same_shape(const LaunchTape& other) const;
  // A hash of what same_shape compares.
  uint64_t shape_hash() const;
  // Entry i's argument bytes equal other's entry i's (both tapes of the same shape).
  bool same_args(size_t i, const LaunchTape& other) const;
  // Copies entry i's argument bytes from other (same shape).
  void copy_args(size_t i, const LaunchTape& other);

 private:
  std::vector<Entry> entries_;
  std::vector<uint32_t> arg_offsets_, arg_sizes_;  // per argument, into bytes_
  std::vector<std::byte> bytes_;
  std::vector<void*> pointers_;  // scratch for args()
};

}  // namespace plumb::cuda
