// Writing a tiny checkpoint folder: config from the spec, tensors from tiny_weights, split into shards by block
// (model-wide tensors and the first blocks in shard 1), an index, and the tiny tokenizer.
#include "model/dsv4/tiny_checkpoint.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "base/error.h"
#include "io/safetensors_writer.h"
#include "model/dsv4/tensor_plan.h"
#include "model/dsv4/tiny_weights.h"
#include "text/tiny_tokenizer.h"

namespace plumb::dsv4 {
namespace {

using nlohmann::json;

int64_t special_token_id(int64_t vocab, std::string_view content) {
  const auto& specials = text::tiny_tokenizer_special_tokens();
  const auto it = std::find(specials.begin(), specials.end(), content);
  PLUMB_CHECK(it != specials.end());
  return vocab - int64_t(specials.size()) + int64_t(it - specials.begin());
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) fail("{}: cannot write", path.string());
}

std::string shard_name(int index, int count) {
  return fmt::format("model-{:05d}-of-{:05d}.safetensors", index + 1, count);
}

}  // namespace

Config tiny_config(const TinySpec& s) {
  json j;
  j["vocab_size"] = s.vocab;
  j["hidden_size"] = s.hidden;
  j["num_hidden_layers"] = int64_t(s.compress_ratios.size());
  j["num_nextn_predict_layers"] = s.mtp_layers;
  j["num_attention_heads"] = s.heads;
  j["num_key_value_heads"] = 1;
  j["head_dim"] = s.head_dim;
  j["qk_rope_head_dim"] = s.rope_head_dim;
  j["q_lora_rank"] = s.q_lora_rank;
  j["o_groups"] = s.o_groups;
  j["o_lora_rank"] = s.o_lora_rank;
  j["sliding_window"] = s.sliding_window;
  j["n_routed_experts"] = s.routed_experts;
  j["n_shared_experts"] = 1;
  j["num_experts_per_tok"] = s.experts_per_token;
  j["moe_intermediate_size"] = s.moe_inter;
  j["index_n_heads"] = s.index_heads;
  j["index_head_dim"] = s.index_head_dim;
  j["index_topk"] = s.index_topk;
  j["hc_mult"] = s.hc_mult;
  j["hc_sinkhorn_iters"] = s.hc_sinkhorn_iters;
  j["hc_eps"] = 1e-6;
  j["rms_norm_eps"] = 1e-6;
  j["routed_scaling_factor"] = 1.5;
  j["swiglu_limit"] = 10.0;
  j["scoring_func"] = "sqrtsoftplus";
  j["rope_theta"] = 10000;
  j["compress_rope_theta"] = 160000;
  j["rope_scaling"] = {{"type", "yarn"},
                       {"factor", 16},
                       {"original_max_position_embeddings", 65536},
                       {"beta_fast", 32},
                       {"beta_slow", 1}};
  j["max_position_embeddings"] = 65536;
  j["bos_token_id"] = special_token_id(s.vocab, "<｜begin▁of▁sentence｜>");
  j["eos_token_id"] = special_token_id(s.vocab, "<｜end▁of▁sentence｜>");
  json ratios = s.compress_ratios;
  for (int64_t i = 0; i < s.mtp_layers; ++i) ratios.push_back(0);
  j["compress_ratios"] = ratios;
  j["num_hash_layers"] = s.hash_layers;
  return Config::from_json(j, "tiny spec");
}

void write_tiny_checkpoint(const std::filesystem::path& out_dir, const TinySpec& spec) {
  if (std::filesystem::exists(out_dir) &&
      (!std::filesystem::is_directory(out_dir) || !std::filesystem::is_empty(out_dir)))
    fail("{}: exists and is not an empty folder; gen-tiny writes only into a new or empty folder", out_dir.string());
  if (spec.shards < 1) fail("gen-tiny: shards must be at least 1 (got {})", spec.shards);
  const Config config = tiny_config(spec);
  const std::string tokenizer = text::tiny_tokenizer_json(int(spec.vocab));
  std::filesystem::create_directories(out_dir);

  // Shard by block so each shard holds whole layers: model-wide tensors go with block 0.
  std::vector<std::vector<io::TensorData>> shards(static_cast<size_t>(spec.shards));
  const std::vector<PlannedTensor> plan = plan_tensors(config);
  std::vector<io::TensorData> tensors = generate_tiny_tensors(config, spec.seed, spec.gate_scale);
  PLUMB_CHECK(plan.size() == tensors.size());
  json weight_map = json::object();
  uint64_t total = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    const int64_t block = std::max<int64_t>(plan[i].block, 0);
    const int shard = int(std::min<int64_t>(spec.shards - 1, block * spec.shards / config.num_blocks()));
    weight_map[tensors[i].name] = shard_name(shard, spec.shards);
    total += tensors[i].bytes.size();
    shards[size_t(shard)].push_back(std::move(tensors[i]));
  }
  for (int s = 0; s < spec.shards; ++s)
    io::write_safetensors(out_dir / shard_name(s, spec.shards), shards[size_t(s)], {{"format", "pt"}});

  const json index = {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}};
  write_text(out_dir / "model.safetensors.index.json", index.dump(2) + "\n");
  write_text(out_dir / "config.json", config.to_json().dump(2) + "\n");
  const json generation = {{"bos_token_id", config.bos_token_id},
                           {"eos_token_id", config.eos_token_id},
                           {"do_sample", true},
                           {"temperature", 1.0},
                           {"top_p", 1.0}};
  write_text(out_dir / "generation_config.json", generation.dump(2) + "\n");
  write_text(out_dir / "tokenizer.json", tokenizer);
  write_text(out_dir / "tokenizer_config.json", text::tiny_tokenizer_config_json());
}

}  // namespace plumb::dsv4
