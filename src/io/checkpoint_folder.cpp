// Opening a model folder: config.json, then the weight files the index names (or the lone model.safetensors, or
// every .safetensors file), collecting what is wrong with them instead of stopping at the first.
#include "io/checkpoint_folder.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "base/error.h"

namespace plumb::io {
namespace {

constexpr std::string_view kModelPrefix = "model.";

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot read", path.string());
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON: {}", path.string(), e.what());
  }
}

bool is_plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\\') == std::string::npos;
}

}  // namespace

std::string_view canonical_tensor_name(std::string_view name) {
  return name.starts_with(kModelPrefix) ? name.substr(kModelPrefix.size()) : name;
}

CheckpointFolder CheckpointFolder::open(const std::filesystem::path& path) {
  CheckpointFolder folder;
  std::filesystem::path config_path;
  if (std::filesystem::is_regular_file(path)) {
    config_path = path;
    folder.dir_ = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  } else if (std::filesystem::is_directory(path)) {
    folder.dir_ = path;
    config_path = path / "config.json";
  } else {
    fail("{}: no such folder or file", path.string());
  }
  if (!std::filesystem::is_regular_file(config_path)) fail("{}: config.json missing", folder.dir_.string());
  folder.config_ = read_json_file(config_path);
  if (!folder.config_.is_object()) fail("{}: not a JSON object", config_path.string());

  const auto index_path = folder.dir_ / "model.safetensors.index.json";
  const auto single_path = folder.dir_ / "model.safetensors";
  if (std::filesystem::exists(index_path)) {
    folder.has_weight_files_ = true;
    folder.load_index(index_path);
  } else if (std::filesystem::exists(single_path)) {
    folder.has_weight_files_ = true;
    folder.load_files({single_path});
  } else {
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(folder.dir_))
      if (entry.path().extension() == ".safetensors") paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    folder.has_weight_files_ = !paths.empty();
    folder.load_files(paths);
  }
  folder.index_tensors();
  return folder;
}

void CheckpointFolder::load_index(const std::filesystem::path& index_path) {
  const std::string label = index_path.string();
  nlohmann::json index;
  try {
    index = read_json_file(index_path);
  } catch (const Error& e) {
    add_problem(e.what());
    return;
  }
  const auto map_it = index.is_object() ? index.find("weight_map") : index.end();
  if (!index.is_object() || map_it == index.end() || !map_it->is_object()) {
    add_problem(fmt::format("{}: no \"weight_map\" object", label));
    return;
  }
  std::map<std::string, std::vector<std::string>> names_by_shard;
  for (const auto& [name, shard] : map_it->items()) {
    if (!shard.is_string() || !is_plain_file_name(shard.get<std::string>())) {
      add_problem(fmt::format("{}: tensor {}: shard {} is not a file name in this folder", label, name, shard.dump()));
      continue;
    }
    names_by_shard[shard.get<std::string>()].push_back(name);
  }

  for (const auto& [shard, names] : names_by_shard) {
    const auto shard_path = dir_ / shard;
    const auto mark_unreadable = [&] {
      for (const auto& n : names) unreadable_.insert(std::string(canonical_tensor_name(n)));
    };
    if (!std::filesystem::exists(shard_path)) {
      add_problem(fmt::format("{}: missing shard (the index lists {} tensors in it, e.g. {})", shard_path.string(),
                              names.size(), names.front()));
      mark_unreadable();
      continue;
    }
    try {
      files_.emplace_back(shard_path);
    } catch (const Error& e) {
      add_problem(e.what());
      mark_unreadable();
      continue;
    }
    for (const auto& n : names)
      if (!files_.back().find(n))
        add_problem(fmt::format("{}: tensor {}: listed in {} but not in this shard", shard_path.string(), n,
                                index_path.filename().string()));
  }
}

void CheckpointFolder::load_files(const std::vector<std::filesystem::path>& paths) {
  for (const auto& p : paths) {
    try {
      files_.emplace_back(p);
    } catch (const Error& e) {
      add_problem(e.what());
    }
  }
}

void CheckpointFolder::index_tensors() {
  for (size_t i = 0; i < files_.size(); ++i)
    for (const auto& t : files_[i].tensors()) {
      const std::string canonical(canonical_tensor_name(t.name));
      const auto [it, inserted] = by_name_.emplace(canonical, Location{i, &t});
      if (!inserted)
        add_problem(fmt::format("tensor {}: stored twice, in {} and in {}", canonical,
                                files_[it->second.file].path().string(), files_[i].path().string()));
    }
}

void CheckpointFolder::require_readable() const {
  if (problems_.empty()) return;
  fail("model folder {}: {} problem(s) with the weight files:\n  {}", dir_.string(), problems_.size(),
       fmt::join(problems_, "\n  "));
}

std::optional<TensorRef> CheckpointFolder::find(std::string_view name) const {
  const auto it = by_name_.find(std::string(canonical_tensor_name(name)));
  if (it == by_name_.end()) return std::nullopt;
  return TensorRef{&files_[it->second.file], it->second.info};
}

TensorRef CheckpointFolder::at(std::string_view name) const {
  const auto ref = find(name);
  if (!ref) fail("model folder {}: tensor {} missing", dir_.string(), canonical_tensor_name(name));
  return *ref;
}

std::vector<std::string> CheckpointFolder::tensor_names() const {
  std::vector<std::string> names;
  names.reserve(by_name_.size());
  for (const auto& [name, loc] : by_name_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

bool CheckpointFolder::in_unreadable_shard(std::string_view name) const {
  return unreadable_.contains(canonical_tensor_name(name));
}

}  // namespace plumb::io
