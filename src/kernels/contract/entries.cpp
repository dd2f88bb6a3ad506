// The list `plumb contract` runs, by backend.
#include "base/error.h"
#include "kernels/contract/contract_main.h"
#include "kernels/contract/entries.h"
#include "kernels/cuda/device.h"

namespace plumb::contract {

std::vector<KernelSpec> production_kernels(const std::string& backend) {
  if (backend == "cuda") {
    if (!cuda::device_available()) fail("--backend cuda: no CUDA device is available on this machine");
    return {fp8_linear_cuda_entry(), fp4_experts_cuda_entry()};
  }
  if (backend == "cpu") return {};
  fail("unknown backend '{}' (cpu or cuda)", backend);
}

}  // namespace plumb::contract
