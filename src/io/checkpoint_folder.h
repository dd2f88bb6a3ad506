// A model folder: config.json plus weights, either one model.safetensors or shards listed by
// model.safetensors.index.json (without either, every *.safetensors file in the folder). Tensors are looked up by
// name with or without the "model." prefix HF writes. Problems with weight files (a missing or malformed shard, an
// index naming a tensor its shard lacks, a name in two shards) are collected rather than thrown, so a checker can
// report them all at once; require_readable() turns them into one error for code that needs every weight.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/safetensors_reader.h"

namespace plumb::io {

// "model.layers.0.attn.wq_a.weight" -> "layers.0.attn.wq_a.weight"; other names unchanged.
std::string_view canonical_tensor_name(std::string_view name);

struct TensorRef {
  const SafetensorsFile* file;
  const TensorInfo* info;
  std::span<const std::byte> bytes() const { return file->bytes(*info); }
};

class CheckpointFolder {
 public:
  // `path` is the folder, or a config.json inside it (then the folder is its parent). Throws plumb::Error when
  // config.json is missing or not a JSON object; weight-file problems go to problems().
  static CheckpointFolder open(const std::filesystem::path& path);

  const std::filesystem::path& dir() const { return dir_; }
  const nlohmann::json& config() const { return config_; }
  bool has_weight_files() const { return has_weight_files_; }  // an index or any .safetensors file was found
  const std::vector<SafetensorsFile>& files() const { return files_; }
  const std::vector<std::string>& problems() const { return problems_; }
  void require_readable() const;  // throws listing every problem, if any

  std::optional<TensorRef> find(std::string_view name) const;  // either spelling of the name
  TensorRef at(std::string_view name) const;                   // throws naming the folder and tensor
  std::vector<std::string> tensor_names() const;               // canonical names, sorted
  // True when the index puts this tensor in a shard that could not be read (its absence is already a problem).
  bool in_unreadable_shard(std::string_view name) const;

 private:
  void load_index(const std::filesystem::path& index_path);
  void load_files(const std::vector<std::filesystem::path>& paths);
  void index_tensors();  // fills by_name_ once every file is open
  void add_problem(std::string message) { problems_.push_back(std::move(message)); }

  std::filesystem::path dir_;
  nlohmann::json config_;
  bool has_weight_files_ = false;
  std::vector<SafetensorsFile> files_;
  std::vector<std::string> problems_;
  struct Location {
    size_t file;
    const TensorInfo* info;
  };
  std::unordered_map<std::string, Location> by_name_;  // canonical name -> where it lives
  std::set<std::string, std::less<>> unreadable_;      // canonical names the index places in unreadable shards
};

}  // namespace plumb::io
