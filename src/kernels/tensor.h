// The data types every op works on: Tensor (a 2-D view of a backend's memory), Weight (a checkpoint tensor in its
// release storage format, resident where the backend computes) and Buffer (backend memory with an owner).
// Views carry no ownership and no model meaning; ops receive them with explicit shapes so any op can be called
// standalone at any shape (tests, the kernel contract, backend comparisons).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "base/dtype.h"

namespace plumb::kernels {

// A 2-D row-major view: `rows` rows of `cols` elements, consecutive rows `stride` elements apart.
struct Tensor {
  void* data = nullptr;
  DType dtype = DType::dtype_f32;
  int64_t rows = 0, cols = 0, stride = 0;

  static Tensor of(void* data, DType dtype, int64_t rows, int64_t cols) { return {data, dtype, rows, cols, cols}; }
  bool contiguous() const { return stride == cols; }
  Tensor row_range(int64_t first, int64_t count) const;
  Tensor col_range(int64_t first, int64_t count) const;
  Tensor reshape(int64_t new_rows, int64_t new_cols) const;  // contiguous views only
  template <typename T>
  T* row(int64_t r) const {
    return static_cast<T*>(data) + r * stride;
  }
};

// Storage formats of checkpoint tensors (DSV4.md section 2, dsv4-forward.md section 3.1).
enum class WeightFormat : uint8_t {
  fp8_blocks,  // e4m3 codes [rows, cols], one E8M0 scale per 128x128 tile [ceil(rows/128), ceil(cols/128)]
  fp4_blocks,  // e2m1 codes packed two per byte along K [rows, cols/2] (low nibble = even K), E8M0 [rows, cols/32]
  bf16,
  f32,
  i64,
};
const char* weight_format_name(WeightFormat format);

// A weight as [rows, cols] = [out, in] (vectors are [1, n]). Pointers are to the backend's memory.
struct Weight {
  WeightFormat format = WeightFormat::bf16;
  int64_t rows = 0, cols = 0;
  const void* data = nullptr;
  const uint8_t* scales = nullptr;  // E8M0 codes for fp8_blocks / fp4_blocks, else null
  bool present() const { return data != nullptr; }
  int64_t scale_cols() const;       // columns of the scale grid
  size_t data_bytes() const;
  size_t scale_bytes() const;
};

// Backend memory with its release function; moves, never copies.
class Buffer {
 public:
  Buffer() = default;
  Buffer(void* data, size_t bytes, std::function<void(void*)> release)
      : data_(data), bytes_(bytes), release_(std::move(release)) {}
  ~Buffer() { reset(); }
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
      release_ = std::move(other.release_);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Tensor tensor(DType dtype, int64_t rows, int64_t cols) const;  // a view of the start of the buffer

 private:
  void reset() {
    if (data_ && release_) release_(data_);
    data_ = nullptr;
  }
  void* data_ = nullptr;
  size_t bytes_ = 0;
  std::function<void(void*)> release_;
};

}  // namespace plumb::kernels
