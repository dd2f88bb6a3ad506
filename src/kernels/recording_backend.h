// A Backend decorator that runs every op on an inner backend and records each op's outputs as float32 rows, in
// call order. The forward issues the same op sequence on every backend, so two recordings of one token sequence
// (say CPU and CUDA release numerics) line up op by op and show the first op where the backends part.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.h"

namespace plumb::kernels {

struct OpRecord {
  std::string op;  // e.g. "linear.y", "route.ids"
  int64_t rows = 0, cols = 0;
  std::vector<float> values;  // rows * cols; index tensors converted to float
};

// Wraps `inner`; records are appended to `*sink`, which must outlive the returned backend.
std::unique_ptr<Backend> make_recording_backend(std::unique_ptr<Backend> inner, std::vector<OpRecord>* sink);

// Writes records as: u64 count, then per record u32 name length, the name, u64 rows, u64 cols, rows*cols float32.
void write_op_records(const std::string& path, const std::vector<OpRecord>& records);

}  // namespace plumb::kernels
