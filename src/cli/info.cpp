// `plumb info [DIR]`: what a DeepSeek-V4 model folder holds (layers per attention kind, experts, bytes by dtype,
// weight bytes one decoded token reads) and every problem with it; exit status 1 when there is any. DIR may be a
// folder or its config.json; with only a config.json the summary is printed and no weights are checked. Without
// DIR, the built-in tiny model (written on first use) is described and checked.
#include <algorithm>
#include <cstdio>
#include <string>

#include "base/error.h"
#include "cli/command.h"
#include "io/checkpoint_folder.h"
#include "model/dsv4/builtin_model.h"
#include "model/dsv4/checkpoint_check.h"
#include "model/dsv4/config.h"
#include "model/dsv4/tensor_plan.h"

namespace {

using namespace plumb;

// "159.61 GB (159609485896 bytes)": decimal units, exact count alongside.
std::string gigabytes(uint64_t bytes) {
  const double b = double(bytes);
  if (b >= 1e9) return fmt::format("{:.2f} GB ({} bytes)", b / 1e9, bytes);
  if (b >= 1e6) return fmt::format("{:.2f} MB ({} bytes)", b / 1e6, bytes);
  if (b >= 1e3) return fmt::format("{:.2f} kB ({} bytes)", b / 1e3, bytes);
  return fmt::format("{} bytes", bytes);
}

void print_summary(const dsv4::Config& c, const std::vector<dsv4::PlannedTensor>& plan) {
  using dsv4::AttentionKind;
  std::printf("model: DeepSeek-V4, hidden %lld, vocab %lld, %lld layers + %lld MTP block(s)\n",
              (long long)c.hidden_size, (long long)c.vocab_size, (long long)c.num_layers, (long long)c.num_mtp_layers);
  std::string ratios;
  for (const auto& b : c.blocks)
    if (b.compress_ratio && ratios.find(fmt::format(" {}", b.compress_ratio)) == std::string::npos)
      ratios += fmt::format(" {}", b.compress_ratio);
  std::printf(
      "layers: %lld window-only, %lld CSA, %lld HCA (compress ratios:%s); MTP: %lld window-only, %lld CSA, "
      "%lld HCA\n",
      (long long)c.count_blocks(AttentionKind::window), (long long)c.count_blocks(AttentionKind::csa),
      (long long)c.count_blocks(AttentionKind::hca), ratios.empty() ? " none" : ratios.c_str(),
      (long long)c.count_blocks(AttentionKind::window, true), (long long)c.count_blocks(AttentionKind::csa, true),
      (long long)c.count_blocks(AttentionKind::hca, true));
  std::printf(
      "attention: %lld heads x %lld (rope %lld), q_lora %lld, o_groups %lld x %lld, window %lld, "
      "indexer %lld x %lld top-%lld\n",
      (long long)c.num_heads, (long long)c.head_dim, (long long)c.rope_head_dim, (long long)c.q_lora_rank,
      (long long)c.o_groups, (long long)c.o_lora_rank, (long long)c.sliding_window, (long long)c.index_n_heads,
      (long long)c.index_head_dim, (long long)c.index_topk);
  std::printf("experts: %lld routed (top-%lld, inter %lld) + %lld shared; %lld hash-routed layer(s)\n",
              (long long)c.n_routed_experts, (long long)c.experts_per_token, (long long)c.moe_inter_dim,
              (long long)c.n_shared_experts, (long long)c.num_hash_layers());
  const dsv4::WeightBytes w = dsv4::weight_bytes(c, plan);
  std::printf("weights: %zu tensors, %s in total (MTP block(s): %s)\n", plan.size(), gigabytes(w.total).c_str(),
              gigabytes(w.mtp).c_str());
  for (const auto& [dtype, bytes] : w.by_dtype)
    std::printf("  %-8s %s\n", std::string(dtype_name(dtype)).c_str(), gigabytes(bytes).c_str());
  std::printf("read per decoded token (one row, MTP excluded): %s\n", gigabytes(w.per_token).c_str());
  if (c.num_mtp_layers > 0) std::printf("read per MTP draft step: %s\n", gigabytes(w.per_token_mtp).c_str());
}

int run_info(const std::string& dir_arg) {
  const std::filesystem::path path = dir_arg.empty() ? dsv4::builtin_model_dir() : std::filesystem::path(dir_arg);
  const io::CheckpointFolder folder = io::CheckpointFolder::open(path);
  const dsv4::Config config = dsv4::Config::from_json(folder.config(), (folder.dir() / "config.json").string());
  const auto plan = dsv4::plan_tensors(config);
  std::printf("plumb info: %s%s\n", folder.dir().string().c_str(), dir_arg.empty() ? " (built-in tiny model)" : "");
  print_summary(config, plan);

  if (!folder.has_weight_files()) {
    std::printf("files: config only (no weight files); tensors not checked\n");
    return 0;
  }
  uint64_t file_bytes = 0;
  for (const auto& f : folder.files()) file_bytes += f.file_size();
  std::printf("files: %zu readable safetensors file(s), %zu tensors, %s on disk\n", folder.files().size(),
              folder.tensor_names().size(), gigabytes(file_bytes).c_str());
  const dsv4::CheckReport report = dsv4::check_checkpoint(folder, config);
  std::printf("check: %zu of %zu planned tensors present with the right dtype and shape\n", report.tensors_ok,
              plan.size());
  if (!report.unexpected.empty()) {
    std::printf("note: %zu stored tensor(s) the config does not imply (ignored):\n", report.unexpected.size());
    constexpr size_t kShown = 20;  // a folder in another naming scheme would list every tensor
    for (size_t i = 0; i < std::min(kShown, report.unexpected.size()); ++i)
      std::printf("  %s\n", report.unexpected[i].c_str());
    if (report.unexpected.size() > kShown) std::printf("  ... and %zu more\n", report.unexpected.size() - kShown);
  }
  std::printf("problems: %zu\n", report.problems.size());
  for (const auto& p : report.problems) std::printf("  %s\n", p.c_str());
  return report.ok() ? 0 : 1;
}

const cli::RegisterCommand reg("info",
                               "describe and check a DeepSeek-V4 model folder (default: the built-in tiny model)",
                               [](CLI::App& app) {
                                 auto dir = std::make_shared<std::string>();
                                 app.add_option("DIR", *dir, "model folder, or its config.json");
                                 return [dir] { return run_info(*dir); };
                               });

}  // namespace
