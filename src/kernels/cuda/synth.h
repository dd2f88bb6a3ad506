// `plumb synth`: release-width synthetic work timed on the GPU (ENGINE.md section 7): the device's measured copy
// bandwidth (the floor's denominator), each dispatch class alone at 1..16 rows, and the fraction of the bandwidth
// floor each reaches (weight bytes read / copy bandwidth). Prints a table and writes JSON.
#pragma once

#include <string>
#include <vector>

namespace plumb::cuda {

struct SynthOptions {
  std::vector<int> rows = {1, 2, 4, 8, 16};
  int repeats = 20;        // timed launches per cell (median of 5 timings of this many)
  std::string json_path;
};

int run_synth(const SynthOptions& options);

}  // namespace plumb::cuda
