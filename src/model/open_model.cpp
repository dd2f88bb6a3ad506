// Opening a served model: the folder's config picks the family (DeepSeek-V4), the options pick backend and numerics.
#include "model/open_model.h"

#include "base/error.h"
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
  opened.model = std::move(model);
  return opened;
}

}  // namespace plumb::model
