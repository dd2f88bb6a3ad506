// Opening a served model from a checkpoint folder: the one entry point the CLI and the server use, so they
// never name a model family or a backend class. The folder's config.json picks the family (DeepSeek-V4 now).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"

namespace plumb::model {

struct ModelOptions {
  std::string backend = "auto";     // "cpu", "cuda", or "auto" (CUDA when a GPU is present)
  std::string numerics = "release"; // "release" (production) or "oracle" (float64 reference; CPU only)
  int32_t slots = 4;                // slots to hold state for
  int32_t max_rows_per_slot = 64;   // prefill chunk / draft bound per slot per launch
  int64_t max_context = 0;          // 0: the config's max_position_embeddings
};

struct OpenedModel {
  std::unique_ptr<Model> model;
  std::string name;                  // the folder's name, the served model id
  std::vector<int32_t> eos_token_ids;  // from config.json (eos_token_id)
  std::filesystem::path tokenizer_json;  // the folder's tokenizer.json
  std::string backend;                   // the backend it runs on: "cpu" or "cuda"
};

// A short hash naming a checkpoint folder's contents (config.json, the shard index, each weight file's name and
// size): part of the key of spilled prompt-cache files, so a file is never read back into another model.
std::string model_fingerprint(const std::filesystem::path& dir);

// `progress(done, total, what)` is called while weights load (for progress lines).
using LoadProgress = std::function<void(int64_t done, int64_t total, const std::string& what)>;

// Throws plumb::Error naming the file and tensor for a malformed folder.
OpenedModel open_model(const std::filesystem::path& dir, const ModelOptions& options, const LoadProgress& progress = {});

}  // namespace plumb::model
