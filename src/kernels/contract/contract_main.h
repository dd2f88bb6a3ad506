// What `plumb contract` does with a list of kernels: run the gates and controls, print a line per kernel and the
// SUMMARY line, write JSON, and return the exit status (non-zero on any failed gate or missed control).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "kernels/contract/contract.h"

namespace plumb::contract {

struct ContractCliOptions {
  ContractOptions run;
  std::string json_path;  // empty: no JSON
  std::string backend = "cpu";
};

int contract_main(const std::vector<KernelSpec>& kernels, const ContractCliOptions& options, std::FILE* out);

// Every registered production kernel of a backend ("cpu"; "cuda" when built with CUDA).
std::vector<KernelSpec> production_kernels(const std::string& backend);

}  // namespace plumb::contract
