#include <mutex>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device.h"

namespace plumb::cuda {

bool device_available() {
  static const bool available = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
      cudaGetLastError();  // clear the sticky "no driver" error
      return false;
    }
    return true;
  }();
  return available;
}

std::string device_name() {
  if (!device_available()) return {};
  cudaDeviceProp p{};
  PLUMB_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  return p.name;
}

int multiprocessor_count() {
  if (!device_available()) return 0;
  int n = 0;
  PLUMB_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0));
  return n;
}

size_t device_free_bytes() {
  if (!device_available()) return 0;
  size_t free_bytes = 0, total = 0;
  PLUMB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  if (!device_available()) fail("no CUDA device is available");
  if (bytes == 0) return;
  const cudaError_t err = cudaMalloc(&ptr_, bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    fail("out of GPU memory: asked for {} bytes with {} of {} free", bytes, free_bytes, total);
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}

void DeviceBuffer::upload(const void* host, size_t bytes, size_t offset) {
  PLUMB_CHECK(offset + bytes <= bytes_);
  PLUMB_CUDA_CHECK(cudaMemcpy(static_cast<char*>(ptr_) + offset, host, bytes, cudaMemcpyHostToDevice));
}

void DeviceBuffer::download(void* host, size_t bytes, size_t offset) const {
  PLUMB_CHECK(offset + bytes <= bytes_);
  PLUMB_CUDA_CHECK(cudaMemcpy(host, static_cast<const char*>(ptr_) + offset, bytes, cudaMemcpyDeviceToHost));
}

void DeviceBuffer::fill_bytes(uint8_t value) { PLUMB_CUDA_CHECK(cudaMemset(ptr_, value, bytes_)); }

void synchronize() { PLUMB_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace plumb::cuda
