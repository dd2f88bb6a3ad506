// Writing safetensors files. Output is a pure function of the tensors given: data laid out by element size (largest
// first), then by name, after a header padded with spaces to a multiple of 8, so every tensor starts at a multiple
// of its element size (as the reference writer does). The file is written under a temporary name and renamed, so
// a reader never sees half a file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/dtype.h"

namespace plumb::io {

struct TensorData {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;  // numel * dtype_size bytes, little-endian
};

// Throws plumb::Error when a tensor's byte count disagrees with its shape, a name repeats, or the file cannot be
// written.
void write_safetensors(const std::filesystem::path& path, const std::vector<TensorData>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace plumb::io
