// Where the CUDA launchers send their kernels: a CUDA stream (launched at once) or a LaunchQueue (recorded, then
// run as a whole at the queue's next flush, replayed from a CUDA graph when the same launches were seen before).
// Plain C++17 header without CUDA types, shared by the .cu launchers and the backend.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace plumb::cuda {

class LaunchQueue;

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

// One kernel launch as cudaLaunchKernel takes it: the kernel function's address, its shape and pointers to its
// arguments' bytes (sizes[i] bytes at args[i], in parameter order).
struct KernelCall {
  const void* func = nullptr;
  Dim3 grid, block;
  size_t shared_bytes = 0;
  void* const* args = nullptr;
  const uint32_t* sizes = nullptr;
  int count = 0;
  const char* name = "";  // for error messages
};

class Stream {
 public:
  Stream() = default;
  Stream(std::nullptr_t) {}  // the legacy default stream
  Stream(CUstream_st* stream) : stream_(stream) {}
  Stream(LaunchQueue* queue) : queue_(queue) {}
  CUstream_st* stream() const { return stream_; }
  LaunchQueue* queue() const { return queue_; }

 private:
  CUstream_st* stream_ = nullptr;
  LaunchQueue* queue_ = nullptr;
};

// Launches `call` on the stream now, or records it in the queue.
void submit(Stream s, const KernelCall& call);

}  // namespace plumb::cuda
