// Helpers for the checkpoint tests: folder digests, shard rewriting, the acceptance "broken copy" of a tiny
// checkpoint, and running the plumb binary.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "io/safetensors_reader.h"
#include "io/safetensors_writer.h"

namespace plumb::test {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// SHA-256 over every file's name and bytes, in name order.
inline std::string folder_digest(const std::filesystem::path& dir) {
  std::set<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.insert(e.path());
  Sha256 h;
  for (const auto& f : files) {
    const std::string name = f.filename().string(), bytes = read_text(f);
    h.update(name.data(), name.size() + 1);
    h.update(bytes.data(), bytes.size());
  }
  const auto d = h.finish();
  return to_hex(d);
}

inline std::vector<io::TensorData> read_tensors(const std::filesystem::path& file) {
  io::SafetensorsFile f(file);
  std::vector<io::TensorData> out;
  for (const auto& t : f.tensors()) {
    const auto b = f.bytes(t);
    out.push_back({t.name, t.dtype, t.shape, std::vector<std::byte>(b.begin(), b.end())});
  }
  return out;
}

// Reads a shard, lets `edit` change its tensors, writes it back.
inline void rewrite_shard(const std::filesystem::path& file,
                          const std::function<void(std::vector<io::TensorData>&)>& edit) {
  auto tensors = read_tensors(file);
  edit(tensors);
  io::write_safetensors(file, tensors);
}

inline void copy_folder(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::filesystem::create_directories(to);
  for (const auto& e : std::filesystem::directory_iterator(from))
    std::filesystem::copy_file(e.path(), to / e.path().filename());
}

constexpr const char* kShard1 = "model-00001-of-00002.safetensors";
constexpr const char* kShard2 = "model-00002-of-00002.safetensors";
constexpr const char* kDeletedTensor = "layers.1.attn.indexer.weights_proj.weight";
constexpr const char* kReshapedScale = "layers.0.attn.wq_b.scale";  // planned [4, 1] in the tiny model

// The acceptance case: in a copy of a tiny checkpoint, delete one tensor (from its shard and the index), give one
// scale the wrong shape, and cut the end off the second shard.
inline void break_tiny_copy(const std::filesystem::path& dir) {
  rewrite_shard(dir / kShard1, [](std::vector<io::TensorData>& tensors) {
    std::erase_if(tensors, [](const io::TensorData& t) { return t.name == kDeletedTensor; });
    for (auto& t : tensors)
      if (t.name == kReshapedScale) t.shape = {2, 2};
  });
  auto index = nlohmann::json::parse(read_text(dir / "model.safetensors.index.json"));
  index["weight_map"].erase(kDeletedTensor);
  write_text(dir / "model.safetensors.index.json", index.dump(2));
  const auto shard2 = dir / kShard2;
  std::filesystem::resize_file(shard2, std::filesystem::file_size(shard2) - 100);
}

}  // namespace plumb::test
