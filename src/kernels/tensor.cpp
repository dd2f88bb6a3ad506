// Views over tensors and the sizes of stored weights.
#include "kernels/tensor.h"

#include "base/error.h"

namespace plumb::kernels {

Tensor Tensor::row_range(int64_t first, int64_t count) const {
  PLUMB_CHECK(first >= 0 && count >= 0 && first + count <= rows);
  Tensor t = *this;
  t.data = static_cast<std::byte*>(data) + size_t(first * stride) * dtype_size(dtype);
  t.rows = count;
  return t;
}

Tensor Tensor::col_range(int64_t first, int64_t count) const {
  PLUMB_CHECK(first >= 0 && count >= 0 && first + count <= cols);
  Tensor t = *this;
  t.data = static_cast<std::byte*>(data) + size_t(first) * dtype_size(dtype);
  t.cols = count;
  return t;
}

Tensor Tensor::reshape(int64_t new_rows, int64_t new_cols) const {
  PLUMB_CHECK(contiguous() && new_rows * new_cols == rows * cols);
  return {data, dtype, new_rows, new_cols, new_cols};
}

const char* weight_format_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::fp8_blocks: return "FP8 e4m3 (128x128 E8M0 scales)";
    case WeightFormat::fp4_blocks: return "FP4 e2m1 (per-32 E8M0 scales)";
    case WeightFormat::bf16: return "BF16";
    case WeightFormat::f32: return "F32";
    case WeightFormat::i64: return "I64";
  }
  return "?";
}

int64_t Weight::scale_cols() const {
  if (format == WeightFormat::fp8_blocks) return (cols + 127) / 128;
  if (format == WeightFormat::fp4_blocks) return cols / 32;
  return 0;
}

size_t Weight::data_bytes() const {
  const size_t n = size_t(rows * cols);
  switch (format) {
    case WeightFormat::fp8_blocks: return n;
    case WeightFormat::fp4_blocks: return n / 2;
    case WeightFormat::bf16: return n * 2;
    case WeightFormat::f32: return n * 4;
    case WeightFormat::i64: return n * 8;
  }
  return 0;
}

size_t Weight::scale_bytes() const {
  if (format == WeightFormat::fp8_blocks) return size_t(((rows + 127) / 128) * scale_cols());
  if (format == WeightFormat::fp4_blocks) return size_t(rows * scale_cols());
  return 0;
}

Tensor Buffer::tensor(DType dtype, int64_t rows, int64_t cols) const {
  PLUMB_CHECK(size_t(rows * cols) * dtype_size(dtype) <= bytes_);
  return Tensor::of(data_, dtype, rows, cols);
}

}  // namespace plumb::kernels
