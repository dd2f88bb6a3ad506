// Host memory for the ref and cpu backends.
#include "kernels/host_backend.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "base/error.h"

namespace plumb::kernels {
namespace {

constexpr size_t kAlignment = 64;  // a cache line, and enough for any vector load

size_t element_alignment(WeightFormat format) {
  switch (format) {
    case WeightFormat::bf16: return 2;
    case WeightFormat::f32: return 4;
    case WeightFormat::i64: return 8;
    default: return 1;
  }
}

}  // namespace

Buffer HostBackend::allocate(size_t bytes) {
  const size_t rounded = (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p) fail("out of host memory allocating {} bytes", bytes);
  std::memset(p, 0, rounded);
  return Buffer(p, bytes, [](void* q) { std::free(q); });
}

Weight HostBackend::upload_weight(const Weight& host) {
  if (reinterpret_cast<uintptr_t>(host.data) % element_alignment(host.format) == 0) return host;
  Buffer copy = allocate(host.data_bytes());
  std::memcpy(copy.data(), host.data, host.data_bytes());
  Weight w = host;
  w.data = copy.data();
  weight_copies_.push_back(std::move(copy));
  return w;
}

void HostBackend::download(const Tensor& src, void* host) {
  const size_t row_bytes = size_t(src.cols) * dtype_size(src.dtype);
  for (int64_t r = 0; r < src.rows; ++r)
    std::memcpy(static_cast<std::byte*>(host) + size_t(r) * row_bytes,
                static_cast<const std::byte*>(src.data) + size_t(r * src.stride) * dtype_size(src.dtype), row_bytes);
}

void HostBackend::upload(const void* host, const Tensor& dst) {
  const size_t row_bytes = size_t(dst.cols) * dtype_size(dst.dtype);
  for (int64_t r = 0; r < dst.rows; ++r)
    std::memcpy(static_cast<std::byte*>(dst.data) + size_t(r * dst.stride) * dtype_size(dst.dtype),
                static_cast<const std::byte*>(host) + size_t(r) * row_bytes, row_bytes);
}

void HostBackend::download_f32(const Tensor& src, float* host) {
  PLUMB_CHECK(src.dtype == DType::dtype_f32 || src.dtype == DType::dtype_f64);
  for (int64_t r = 0; r < src.rows; ++r) {
    float* out = host + r * src.cols;
    if (src.dtype == DType::dtype_f32) {
      std::memcpy(out, src.row<float>(r), size_t(src.cols) * sizeof(float));
    } else {
      const double* in = src.row<double>(r);
      for (int64_t c = 0; c < src.cols; ++c) out[c] = float(in[c]);
    }
  }
}

void HostBackend::copy_rows(const Tensor& src, std::span<const int64_t> src_rows, const Tensor& dst,
                            std::span<const int64_t> dst_rows) {
  PLUMB_CHECK(src.dtype == dst.dtype && src.cols == dst.cols && src_rows.size() == dst_rows.size());
  const size_t elem = dtype_size(src.dtype), row_bytes = size_t(src.cols) * elem;
  for (size_t i = 0; i < src_rows.size(); ++i) {
    PLUMB_CHECK(src_rows[i] >= 0 && src_rows[i] < src.rows && dst_rows[i] >= 0 && dst_rows[i] < dst.rows);
    std::memmove(static_cast<std::byte*>(dst.data) + size_t(dst_rows[i] * dst.stride) * elem,
                 static_cast<const std::byte*>(src.data) + size_t(src_rows[i] * src.stride) * elem, row_bytes);
  }
}

}  // namespace plumb::kernels
