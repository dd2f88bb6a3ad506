// Large anonymous host memory with the kernel asked for huge pages: faulting in gigabytes 4 KiB at a time costs
// more than filling them, 2 MiB at a time far less. Contents start zeroed; untouched pages take no memory.
#pragma once

#include <cstddef>
#include <utility>

namespace plumb {

class HugeBuffer {
 public:
  HugeBuffer() = default;
  explicit HugeBuffer(size_t bytes);  // throws plumb::Error when the memory cannot be mapped
  ~HugeBuffer();
  HugeBuffer(HugeBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  HugeBuffer& operator=(HugeBuffer&& other) noexcept;
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace plumb
