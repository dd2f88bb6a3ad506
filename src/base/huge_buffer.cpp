// An anonymous mapping with MADV_HUGEPAGE (a hint: without transparent huge pages it is ordinary memory).
#include "base/huge_buffer.h"

#include <sys/mman.h>

#include <algorithm>

#include "base/error.h"

namespace plumb {

HugeBuffer::HugeBuffer(size_t bytes) : size_(std::max<size_t>(bytes, 1)) {
  void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) fail("cannot map {} bytes of host memory", size_);
  madvise(p, size_, MADV_HUGEPAGE);
  data_ = static_cast<std::byte*>(p);
}

HugeBuffer::~HugeBuffer() {
  if (data_) munmap(data_, size_);
}

HugeBuffer& HugeBuffer::operator=(HugeBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace plumb
