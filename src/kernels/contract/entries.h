// The production kernels registered with the contract, per backend. Each entry lives in its own file under
// entries/ and returns a KernelSpec (contract.h says what an entry provides).
#pragma once

#include <string>
#include <vector>

#include "kernels/contract/contract.h"

namespace plumb::contract {

KernelSpec fp8_linear_cuda_entry();
KernelSpec fp4_experts_cuda_entry();

}  // namespace plumb::contract
