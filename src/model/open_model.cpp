// Opening a served model: the folder's config picks the family (DeepSeek-V4), the options pick backend and numerics.
#include "model/open_model.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <vector>

#include "base/error.h"
#include "base/sha256.h"
#include "kernels/cuda/device.h"
#include "model/dsv4/dsv4_model.h"

namespace plumb::model {

OpenedModel open_model(const std::filesystem::path& dir, const ModelOptions& options, const LoadProgress& progress) {
  if (options.backend != "cpu" && options.backend != "cuda" && options.backend != "auto")
    fail("unknown backend '{}': use cpu, cuda or auto", options.backend);
  const kernels::Numerics numerics = kernels::parse_numerics(options.numerics);
  // auto: the GPU when one answers and the numerics are the release's (the oracle is CPU-only).
  const bool cuda = options.backend == "cuda" ||
                    (options.backend == "auto" && numerics == kernels::Numerics::release && cuda::device_available());
  std::filesystem::path folder = std::filesystem::weakly_canonical(dir);
  if (folder.filename().empty()) folder = folder.parent_path();  // "dir/" names the folder too
  dsv4::Dsv4Options o{.numerics = numerics,
                      .backend = cuda ? "cuda" : "cpu",
                      .slots = options.slots,
                      .max_rows_per_slot = options.max_rows_per_slot,
                      .max_context = options.max_context,
                      .name = folder.filename().string()};
  auto model = dsv4::Dsv4Model::open(folder, o, progress);
  OpenedModel opened;
  opened.name = o.name;
  opened.eos_token_ids = {int32_t(model->config().eos_token_id)};
  opened.tokenizer_json = folder / "tokenizer.json";
  opened.backend = o.backend;
  opened.model = std::move(model);
  return opened;
}

std::string model_fingerprint(const std::filesystem::path& dir) {
  Sha256 h;
  auto add_file = [&](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    h.update(bytes.data(), bytes.size());
  };
  add_file(dir / "config.json");
  if (std::filesystem::exists(dir / "model.safetensors.index.json")) add_file(dir / "model.safetensors.index.json");
  std::vector<std::string> shards;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".safetensors")
      shards.push_back(e.path().filename().string() + ":" + std::to_string(e.file_size()));
  std::sort(shards.begin(), shards.end());
  for (const auto& s : shards) h.update(s.data(), s.size());
  return to_hex(h.finish()).substr(0, 16);
}

}  // namespace plumb::model
