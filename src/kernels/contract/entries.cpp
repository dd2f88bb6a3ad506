// The list `plumb contract` runs, by backend.
#include "kernels/contract/entries.h"

#include "base/error.h"
#include "kernels/contract/contract_main.h"
#include "kernels/cuda/device.h"

namespace plumb::contract {

std::vector<KernelSpec> backend_kernels(const Binding& b) {
  return {fp8_linear_entry(b),         dense_linear_entry(b),        act_quant_entry(b),
          fp4_experts_entry(b),        fp4_experts_add_entry(b),     shared_expert_entry(b),
          router_ids_entry(b),         router_weights_entry(b),      rms_norm_entry(b),
          head_rms_norm_entry(b),      head_rms_norm_rope_entry(b),  rope_entry(b),
          embed_entry(b),              add_entry(b),                 hadamard_entry(b),
          mhc_pre_entry(b),            mhc_pre_weights_entry(b),     mhc_pre_norm_entry(b),
          mhc_post_entry(b),           mhc_head_entry(b),            compressor_project_entry(b),
          compressor_pool_entry(b),    indexer_entry(b),             window_attention_entry(b),
          sparse_attention_entry(b),   attention_rope_entry(b)};
}

std::vector<KernelSpec> production_kernels(const std::string& backend) {
  if (backend == "cuda") {
    if (!cuda::device_available()) fail("--backend cuda: no CUDA device is available on this machine");
#ifdef PLUMB_HAVE_CUDA
    std::vector<KernelSpec> kernels = backend_kernels(cuda_binding());
    kernels.push_back(fp8_linear_cuda_entry());
    kernels.push_back(fp4_experts_cuda_entry());
    return kernels;
#endif
  }
  if (backend == "cpu") {
    std::vector<KernelSpec> kernels = backend_kernels(cpu_binding());
    kernels.push_back(sampling_entry());
    return kernels;
  }
  fail("unknown backend '{}' (cpu or cuda)", backend);
}

}  // namespace plumb::contract
