// Without CUDA this file provides the no-device answers; with CUDA, device_cuda.cu provides everything.
#ifndef PLUMB_HAVE_CUDA
#include "kernels/cuda/device.h"

#include "base/error.h"

namespace plumb::cuda {

bool device_available() { return false; }
std::string device_name() { return {}; }
int multiprocessor_count() { return 0; }
size_t device_free_bytes() { return 0; }
DeviceBuffer::DeviceBuffer(size_t) { fail("this plumb was built without CUDA"); }
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}
void DeviceBuffer::upload(const void*, size_t, size_t) { fail("this plumb was built without CUDA"); }
void DeviceBuffer::download(void*, size_t, size_t) const { fail("this plumb was built without CUDA"); }
void DeviceBuffer::fill_bytes(uint8_t) { fail("this plumb was built without CUDA"); }
void synchronize() {}

}  // namespace plumb::cuda
#endif
