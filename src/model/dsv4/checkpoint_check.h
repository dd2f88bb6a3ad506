// Checking a DeepSeek-V4 checkpoint folder against its config: every tensor the config implies must be present
// with the planned dtype and shape, and every hash table must hold distinct, in-range expert ids. All problems are
// gathered in one pass (weight-file problems from the folder first), so one run of `plumb info` lists them all.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/checkpoint_folder.h"
#include "model/dsv4/config.h"

namespace plumb::dsv4 {

struct CheckReport {
  std::vector<std::string> problems;    // each names the tensor (and file, when there is one)
  std::vector<std::string> unexpected;  // stored tensors the config does not imply; listed, not counted as problems
  size_t tensors_ok = 0;                // planned tensors present with the right dtype and shape
  bool ok() const { return problems.empty(); }
};

CheckReport check_checkpoint(const io::CheckpointFolder& folder, const Config& config);

}  // namespace plumb::dsv4
