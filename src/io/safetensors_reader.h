// Reading safetensors files: the file is memory-mapped and its header validated up front, so a tensor's bytes are
// a span into the mapping and a malformed file (truncated, bad header, unknown dtype, shapes that disagree with
// their byte ranges, overlapping or out-of-range offsets, duplicate names) is a plumb::Error naming the file and
// the tensor, never a crash. Format: 8-byte little-endian header length N, N bytes of UTF-8 JSON, then the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/dtype.h"

namespace plumb::io {

struct TensorInfo {
  std::string name;  // as stored in the file
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t offset = 0;  // byte offset of the first element from the start of the file
  uint64_t nbytes = 0;
  int64_t numel() const;
};

// The validated contents of a safetensors header. `label` names the file in error messages.
struct SafetensorsLayout {
  std::vector<TensorInfo> tensors;              // in order of their data offsets
  std::map<std::string, std::string> metadata;  // the optional "__metadata__" string map
  uint64_t data_start = 0;                      // 8 + header length
};
SafetensorsLayout parse_safetensors(std::span<const std::byte> file_bytes, const std::string& label);

// "[2, 3]": how shapes are spelled in every message.
std::string shape_to_string(std::span<const int64_t> shape);

class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::filesystem::path& path);  // maps and validates; throws plumb::Error
  ~SafetensorsFile();
  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& other) noexcept;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::filesystem::path& path() const { return path_; }
  uint64_t file_size() const { return size_; }
  const std::vector<TensorInfo>& tensors() const { return layout_.tensors; }
  const std::map<std::string, std::string>& metadata() const { return layout_.metadata; }
  const TensorInfo* find(std::string_view name) const;  // nullptr when absent
  const TensorInfo& at(std::string_view name) const;    // throws, naming the file and tensor
  std::span<const std::byte> bytes(const TensorInfo& tensor) const;

 private:
  void unmap();

  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  uint64_t size_ = 0;
  SafetensorsLayout layout_;
  std::unordered_map<std::string_view, size_t> index_;  // name -> position in layout_.tensors
};

}  // namespace plumb::io
