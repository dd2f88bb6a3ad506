// The CUDA device as plain C++ sees it: whether one is usable, and RAII device buffers. Everything here compiles
// without CUDA (then no device is ever available), so callers and tests need no #ifdefs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace plumb::cuda {

// True when plumb was built with CUDA and a device answers (a machine without a GPU or driver says false).
bool device_available();
std::string device_name();   // "" without a device
int multiprocessor_count();  // 0 without a device
size_t device_free_bytes();   // free device memory now (0 without a device)

// A device allocation owned by this object.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr, o.bytes_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

  void upload(const void* host, size_t bytes, size_t offset = 0);
  void download(void* host, size_t bytes, size_t offset = 0) const;
  void fill_bytes(uint8_t value);

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

void synchronize();  // waits for the device; throws plumb::Error on a pending error

}  // namespace plumb::cuda
