// The production kernels registered with the contract, per backend. Each kernel family's entries live in one file
// under entries/; the generic ones check an op of the kernels::Backend interface on the backend a Binding names
// (entries/op_problem.h), so the CPU and CUDA backends share them.
#pragma once

#include <string>
#include <vector>

#include "kernels/contract/contract.h"
#include "kernels/contract/entries/op_problem.h"

namespace plumb::contract {

KernelSpec fp8_linear_entry(const Binding& b);
KernelSpec dense_linear_entry(const Binding& b);
KernelSpec act_quant_entry(const Binding& b);
KernelSpec fp4_experts_entry(const Binding& b);
KernelSpec fp4_experts_add_entry(const Binding& b);
KernelSpec shared_expert_entry(const Binding& b);
KernelSpec router_ids_entry(const Binding& b);
KernelSpec router_weights_entry(const Binding& b);
KernelSpec rms_norm_entry(const Binding& b);
KernelSpec head_rms_norm_entry(const Binding& b);
KernelSpec head_rms_norm_rope_entry(const Binding& b);
KernelSpec rope_entry(const Binding& b);
KernelSpec embed_entry(const Binding& b);
KernelSpec add_entry(const Binding& b);
KernelSpec hadamard_entry(const Binding& b);
KernelSpec mhc_pre_entry(const Binding& b);
KernelSpec mhc_pre_weights_entry(const Binding& b);
KernelSpec mhc_pre_norm_entry(const Binding& b);
KernelSpec mhc_post_entry(const Binding& b);
KernelSpec mhc_head_entry(const Binding& b);
KernelSpec compressor_project_entry(const Binding& b);
KernelSpec compressor_pool_entry(const Binding& b);
KernelSpec indexer_entry(const Binding& b);
KernelSpec window_attention_entry(const Binding& b);
KernelSpec sparse_attention_entry(const Binding& b);
KernelSpec attention_rope_entry(const Binding& b);

// Every op of the Backend interface on the bound backend.
std::vector<KernelSpec> backend_kernels(const Binding& b);

// The host sampler (the same for every backend).
KernelSpec sampling_entry();

// Direct checks of the CUDA kernels below the Backend interface (their pass sizes are variants).
KernelSpec fp8_linear_cuda_entry();
KernelSpec fp4_experts_cuda_entry();

}  // namespace plumb::contract
