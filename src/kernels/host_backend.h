// Memory for backends that compute in host memory (ref and cpu): zeroed aligned allocations, weights used in place
// (the checkpoint's mapped bytes, copied only when misaligned), row copies. The ops are left to the subclasses.
#pragma once

#include <vector>

#include "kernels/backend.h"

namespace plumb::kernels {

class HostBackend : public Backend {
 public:
  Buffer allocate(size_t bytes) override;
  Weight upload_weight(const Weight& host) override;
  void download(const Tensor& src, void* host) override;
  void upload(const void* host, const Tensor& dst) override;
  void download_f32(const Tensor& src, float* host) override;
  void copy_rows(const Tensor& src, std::span<const int64_t> src_rows, const Tensor& dst,
                 std::span<const int64_t> dst_rows) override;

 private:
  std::vector<Buffer> weight_copies_;  // weights whose mapped bytes were misaligned for their element type
};

}  // namespace plumb::kernels
