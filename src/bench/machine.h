// The machine a benchmark ran on, recorded with every result: host name, CPU model, logical CPUs, and the GPUs
// nvidia-smi lists ("none" where there is no nvidia-smi or it lists nothing).
#pragma once

#include <nlohmann/json.hpp>

namespace plumb::bench {

nlohmann::json machine_json();

}  // namespace plumb::bench
