// Reading and validating DeepSeek-V4 config.json in both spellings (release and HF transformers' deepseek_v4), and
// writing the release spelling back.
#include "model/dsv4/config.h"

#include <cmath>

#include "base/error.h"

namespace plumb::dsv4 {
namespace {

using nlohmann::json;

constexpr const char* kCsaType = "compressed_sparse_attention";
constexpr const char* kHcaType = "heavily_compressed_attention";
constexpr const char* kWindowType = "sliding_attention";

// Field readers: `label` is the file name that starts every message.
class Fields {
 public:
  Fields(const json& j, const std::string& label) : j_(j), label_(label) {}

  bool has(const char* field) const { return j_.contains(field) && !j_.at(field).is_null(); }

  int64_t integer(const char* field) const {
    if (!has(field)) fail("{}: missing field {}", label_, field);
    return integer_value(j_.at(field), field);
  }
  int64_t integer(const char* field, int64_t fallback) const { return has(field) ? integer(field) : fallback; }

  double number(const char* field, double fallback) const {
    if (!has(field)) return fallback;
    return number_value(j_.at(field), field);
  }
  double number(const char* field) const {
    if (!has(field)) fail("{}: missing field {}", label_, field);
    return number_value(j_.at(field), field);
  }

  int64_t integer_value(const json& v, const std::string& field) const {
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float() && std::fabs(v.get<double>()) < 9e18 && v.get<double>() == std::trunc(v.get<double>()))
      return int64_t(v.get<double>());
    fail("{}: {} must be an integer (got {})", label_, field, v.dump());
  }
  double number_value(const json& v, const std::string& field) const {
    if (!v.is_number()) fail("{}: {} must be a number (got {})", label_, field, v.dump());
    return v.get<double>();
  }

  const json& at(const char* field) const { return j_.at(field); }
  const std::string& label() const { return label_; }

 private:
  const json& j_;
  const std::string& label_;
};

void require_positive(const std::string& label, const char* field, int64_t v) {
  if (v <= 0) fail("{}: {} must be positive (got {})", label, field, v);
}

// YaRN settings from a release rope_scaling or an HF rope_parameters (flat, or nested under "compress").
void read_rope(const Fields& f, Config& c) {
  c.rope_theta = f.number("rope_theta", 10000.0);
  const json* yarn = nullptr;
  std::string yarn_field;
  if (f.has("rope_scaling")) {
    yarn = &f.at("rope_scaling");
    yarn_field = "rope_scaling";
  } else if (f.has("rope_parameters")) {
    const json& rp = f.at("rope_parameters");
    if (!rp.is_object()) fail("{}: rope_parameters must be an object", f.label());
    if (rp.contains("compress")) {
      yarn = &rp.at("compress");
      yarn_field = "rope_parameters.compress";
      if (rp.contains("main") && rp.at("main").contains("rope_theta"))
        c.rope_theta = f.number_value(rp.at("main").at("rope_theta"), "rope_parameters.main.rope_theta");
      if (yarn->is_object() && yarn->contains("rope_theta"))
        c.compress_rope_theta = f.number_value(yarn->at("rope_theta"), "rope_parameters.compress.rope_theta");
    } else {
      yarn = &rp;
      yarn_field = "rope_parameters";
    }
  }
  if (!yarn) return;
  if (!yarn->is_object()) fail("{}: {} must be an object", f.label(), yarn_field);
  Fields y(*yarn, f.label());
  const std::string type = yarn->value("rope_type", yarn->value("type", std::string("default")));
  if (type != "yarn") return;
  c.rope_factor = y.number_value(yarn->value("factor", json(1.0)), yarn_field + ".factor");
  c.rope_original_max_position = y.integer_value(yarn->value("original_max_position_embeddings", json(0)),
                                                 yarn_field + ".original_max_position_embeddings");
  c.rope_beta_fast = y.number_value(yarn->value("beta_fast", json(32)), yarn_field + ".beta_fast");
  c.rope_beta_slow = y.number_value(yarn->value("beta_slow", json(1)), yarn_field + ".beta_slow");
  if (c.rope_factor <= 0) fail("{}: {}.factor must be positive", f.label(), yarn_field);
  if (c.rope_original_max_position <= 0)
    fail("{}: {}.original_max_position_embeddings must be positive for YaRN", f.label(), yarn_field);
}

// Per-block compress ratios of the main layers from compress_ratios and/or layer_types (+ compress_rates).
std::vector<int> read_ratios(const Fields& f, int64_t num_layers, int64_t num_mtp, std::vector<int>& mtp_ratios) {
  std::vector<int> from_ratios, from_types;
  if (f.has("compress_ratios")) {
    const json& arr = f.at("compress_ratios");
    if (!arr.is_array()) fail("{}: compress_ratios must be an array", f.label());
    if (int64_t(arr.size()) != num_layers && int64_t(arr.size()) != num_layers + num_mtp)
      fail(
          "{}: compress_ratios has {} entries; num_hidden_layers ({}) or num_hidden_layers + "
          "num_nextn_predict_layers ({}) expected",
          f.label(), arr.size(), num_layers, num_layers + num_mtp);
    for (size_t i = 0; i < arr.size(); ++i) {
      const int64_t r = f.integer_value(arr[i], fmt::format("compress_ratios[{}]", i));
      if (r < 0 || r > (1 << 20)) fail("{}: compress_ratios[{}] = {} is out of range", f.label(), i, r);
      (int64_t(i) < num_layers ? from_ratios : mtp_ratios).push_back(int(r));
    }
  }
  if (f.has("layer_types")) {
    int csa_rate = 4, hca_rate = 128;
    if (f.has("compress_rates")) {
      const json& rates = f.at("compress_rates");
      if (!rates.is_object()) fail("{}: compress_rates must be an object", f.label());
      if (rates.contains(kCsaType))
        csa_rate = int(f.integer_value(rates.at(kCsaType), std::string("compress_rates.") + kCsaType));
      if (rates.contains(kHcaType))
        hca_rate = int(f.integer_value(rates.at(kHcaType), std::string("compress_rates.") + kHcaType));
    }
    if (csa_rate != 4)
      fail("{}: compress_rates.{} is {}; DeepSeek-V4 builds the overlapping compressor and indexer exactly at ratio 4",
           f.label(), kCsaType, csa_rate);
    if (hca_rate <= 0 || hca_rate == 4)
      fail("{}: compress_rates.{} is {}; it must be positive and not 4", f.label(), kHcaType, hca_rate);
    const json& arr = f.at("layer_types");
    if (!arr.is_array() || int64_t(arr.size()) != num_layers)
      fail("{}: layer_types must be an array of num_hidden_layers ({}) entries", f.label(), num_layers);
    for (size_t i = 0; i < arr.size(); ++i) {
      const std::string t = arr[i].is_string() ? arr[i].get<std::string>() : arr[i].dump();
      if (t == kWindowType) {
        from_types.push_back(0);
      } else if (t == kCsaType) {
        from_types.push_back(csa_rate);
      } else if (t == kHcaType) {
        from_types.push_back(hca_rate);
      } else {
        fail("{}: layer_types[{}] is \"{}\"; expected {}, {} or {}", f.label(), i, t, kWindowType, kCsaType, kHcaType);
      }
    }
  }
  if (from_ratios.empty() && from_types.empty())
    fail("{}: missing field compress_ratios (or layer_types): the attention kind of each layer", f.label());
  if (!from_ratios.empty() && !from_types.empty())
    for (int64_t i = 0; i < num_layers; ++i)
      if (from_ratios[i] != from_types[i])
        fail("{}: layer_types[{}] (ratio {}) disagrees with compress_ratios[{}] = {}", f.label(), i, from_types[i], i,
             from_ratios[i]);
  return from_types.empty() ? from_ratios : from_types;
}

std::vector<bool> read_hash_layers(const Fields& f, int64_t num_layers) {
  std::vector<bool> from_count, from_types;
  if (f.has("num_hash_layers")) {
    const int64_t n = f.integer("num_hash_layers");
    if (n < 0 || n > num_layers)
      fail("{}: num_hash_layers = {} must be between 0 and num_hidden_layers ({})", f.label(), n, num_layers);
    for (int64_t i = 0; i < num_layers; ++i) from_count.push_back(i < n);
  }
  if (f.has("mlp_layer_types")) {
    const json& arr = f.at("mlp_layer_types");
    if (!arr.is_array() || int64_t(arr.size()) != num_layers)
      fail("{}: mlp_layer_types must be an array of num_hidden_layers ({}) entries", f.label(), num_layers);
    for (size_t i = 0; i < arr.size(); ++i) {
      const std::string t = arr[i].is_string() ? arr[i].get<std::string>() : arr[i].dump();
      if (t != "hash_moe" && t != "moe")
        fail("{}: mlp_layer_types[{}] is \"{}\"; expected hash_moe or moe", f.label(), i, t);
      from_types.push_back(t == "hash_moe");
    }
  }
  if (from_count.empty() && from_types.empty() && num_layers > 0)
    fail("{}: missing field num_hash_layers (or mlp_layer_types): which layers route by token id", f.label());
  if (!from_count.empty() && !from_types.empty() && from_count != from_types)
    fail("{}: mlp_layer_types disagrees with num_hash_layers", f.label());
  return from_types.empty() ? from_count : from_types;
}

void read_quantization(const Fields& f) {
  if (!f.has("quantization_config")) return;
  const json& q = f.at("quantization_config");
  const auto expect = [&](const char* key, const json& want) {
    if (q.contains(key) && q.at(key) != want)
      fail("{}: quantization_config.{} is {}; plumb reads the release format ({})", f.label(), key, q.at(key).dump(),
           want.dump());
  };
  if (!q.is_object()) fail("{}: quantization_config must be an object", f.label());
  expect("quant_method", "fp8");
  expect("fmt", "e4m3");
  expect("scale_fmt", "ue8m0");
  expect("weight_block_size", json::array({128, 128}));
}

void validate(const Config& c, const std::string& label) {
  if (c.num_heads % c.o_groups != 0)
    fail("{}: num_attention_heads ({}) must be a multiple of o_groups ({})", label, c.num_heads, c.o_groups);
  if (c.rope_head_dim <= 0 || c.rope_head_dim % 2 != 0 || c.rope_head_dim >= c.head_dim)
    fail("{}: qk_rope_head_dim ({}) must be even, positive and below head_dim ({})", label, c.rope_head_dim,
         c.head_dim);
  if ((c.head_dim - c.rope_head_dim) % 64 != 0)
    fail(
        "{}: head_dim - qk_rope_head_dim ({}) must be a multiple of 64: the KV cache rounds those dims to FP8 in "
        "blocks of 64",
        label, c.head_dim - c.rope_head_dim);
  if (c.rope_head_dim > c.index_head_dim)
    fail("{}: index_head_dim ({}) must be at least qk_rope_head_dim ({})", label, c.index_head_dim, c.rope_head_dim);
  if ((c.index_head_dim & (c.index_head_dim - 1)) != 0 || c.index_head_dim % 32 != 0)
    fail("{}: index_head_dim ({}) must be a power of two and a multiple of 32 (Hadamard transform, FP4 blocks of 32)",
         label, c.index_head_dim);
  if (c.hidden_size % 32 != 0)
    fail("{}: hidden_size ({}) must be a multiple of 32: routed experts store FP4 in blocks of 32 along it", label,
         c.hidden_size);
  if (c.moe_inter_dim % 32 != 0)
    fail("{}: moe_intermediate_size ({}) must be a multiple of 32: routed experts store FP4 in blocks of 32 along it",
         label, c.moe_inter_dim);
  if (c.experts_per_token > c.n_routed_experts)
    fail("{}: num_experts_per_tok ({}) exceeds n_routed_experts ({})", label, c.experts_per_token, c.n_routed_experts);
  if (c.n_shared_experts != 1)
    fail("{}: n_shared_experts is {}; DeepSeek-V4 has exactly one shared expert", label, c.n_shared_experts);
  if (c.scoring_func != "sqrtsoftplus")
    fail("{}: scoring_func is \"{}\"; DeepSeek-V4 scores experts with sqrtsoftplus", label, c.scoring_func);
  if (c.hc_sinkhorn_iters < 1) fail("{}: hc_sinkhorn_iters must be at least 1", label);
}

}  // namespace

const char* attention_kind_name(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::window: return "window";
    case AttentionKind::csa: return "CSA";
    case AttentionKind::hca: return "HCA";
  }
  return "?";
}

AttentionKind attention_kind_for_ratio(int ratio) {
  return ratio == 0 ? AttentionKind::window : ratio == 4 ? AttentionKind::csa : AttentionKind::hca;
}

Config Config::from_json(const json& j, const std::string& label) {
  if (!j.is_object()) fail("{}: not a JSON object", label);
  const Fields f(j, label);
  Config c;
  c.vocab_size = f.integer("vocab_size");
  c.hidden_size = f.integer("hidden_size");
  c.num_layers = f.integer("num_hidden_layers");
  c.num_mtp_layers = f.integer("num_nextn_predict_layers", 0);
  c.num_heads = f.integer("num_attention_heads");
  c.head_dim = f.integer("head_dim");
  c.q_lora_rank = f.integer("q_lora_rank");
  c.o_groups = f.integer("o_groups");
  c.o_lora_rank = f.integer("o_lora_rank");
  c.sliding_window = f.integer("sliding_window");
  c.n_routed_experts = f.integer("n_routed_experts");
  c.n_shared_experts = f.integer("n_shared_experts", 1);
  c.experts_per_token = f.integer("num_experts_per_tok");
  c.moe_inter_dim = f.integer("moe_intermediate_size");
  c.index_n_heads = f.integer("index_n_heads");
  c.index_head_dim = f.integer("index_head_dim");
  c.index_topk = f.integer("index_topk");
  c.hc_mult = f.integer("hc_mult");
  c.hc_sinkhorn_iters = f.integer("hc_sinkhorn_iters", 20);
  c.hc_eps = f.number("hc_eps", 1e-6);
  c.rms_norm_eps = f.number("rms_norm_eps", 1e-6);
  c.routed_scaling_factor = f.number("routed_scaling_factor", 1.0);
  c.swiglu_limit = f.number("swiglu_limit", 0.0);
  if (f.has("scoring_func")) {
    if (!f.at("scoring_func").is_string()) fail("{}: scoring_func must be a string", label);
    c.scoring_func = f.at("scoring_func").get<std::string>();
  }
  c.max_position_embeddings = f.integer("max_position_embeddings", 0);
  c.bos_token_id = f.integer("bos_token_id", 0);
  if (f.has("eos_token_id") && f.at("eos_token_id").is_array()) {  // HF allows a list; the first is the EOS
    if (f.at("eos_token_id").empty()) fail("{}: eos_token_id is an empty list", label);
    c.eos_token_id = f.integer_value(f.at("eos_token_id")[0], "eos_token_id[0]");
  } else {
    c.eos_token_id = f.integer("eos_token_id", 1);
  }

  for (const char* field :
       {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "head_dim", "q_lora_rank", "o_groups",
        "o_lora_rank", "sliding_window", "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size",
        "index_n_heads", "index_head_dim", "index_topk", "hc_mult"})
    require_positive(label, field, f.integer(field));
  if (c.num_mtp_layers < 0) fail("{}: num_nextn_predict_layers must not be negative", label);
  if (f.has("num_key_value_heads") && f.integer("num_key_value_heads") != 1)
    fail("{}: num_key_value_heads is {}; DeepSeek-V4 attention has one shared K=V head", label,
         f.integer("num_key_value_heads"));

  if (f.has("qk_rope_head_dim")) {
    c.rope_head_dim = f.integer("qk_rope_head_dim");
  } else if (f.has("partial_rotary_factor")) {
    c.rope_head_dim = int64_t(double(c.head_dim) * f.number("partial_rotary_factor") + 0.5);
  } else {
    fail("{}: missing field qk_rope_head_dim (or partial_rotary_factor)", label);
  }
  read_rope(f, c);
  read_quantization(f);

  std::vector<int> mtp_ratios;
  const std::vector<int> ratios = read_ratios(f, c.num_layers, c.num_mtp_layers, mtp_ratios);
  const std::vector<bool> hash = read_hash_layers(f, c.num_layers);
  for (int64_t i = 0; i < c.num_layers + c.num_mtp_layers; ++i) {
    BlockSpec b;
    b.mtp = i >= c.num_layers;
    b.compress_ratio = b.mtp ? (mtp_ratios.empty() ? 0 : mtp_ratios[i - c.num_layers]) : ratios[i];
    b.attention = attention_kind_for_ratio(b.compress_ratio);
    b.hash_routed = !b.mtp && hash[i];
    c.blocks.push_back(b);
  }
  const bool any_compressed = c.count_blocks(AttentionKind::csa) + c.count_blocks(AttentionKind::csa, true) +
                                  c.count_blocks(AttentionKind::hca) + c.count_blocks(AttentionKind::hca, true) >
                              0;
  if (f.has("compress_rope_theta")) {
    c.compress_rope_theta = f.number("compress_rope_theta");
  } else if (!(f.has("rope_parameters") && f.at("rope_parameters").contains("compress"))) {
    if (any_compressed) fail("{}: missing field compress_rope_theta (RoPE base of the compressed layers)", label);
    c.compress_rope_theta = c.rope_theta;
  }
  validate(c, label);
  return c;
}

json Config::to_json() const {
  json j;
  j["architectures"] = {"DeepseekV4ForCausalLM"};
  j["model_type"] = "deepseek_v4";
  j["vocab_size"] = vocab_size;
  j["hidden_size"] = hidden_size;
  j["num_hidden_layers"] = num_layers;
  j["num_nextn_predict_layers"] = num_mtp_layers;
  j["num_attention_heads"] = num_heads;
  j["num_key_value_heads"] = 1;
  j["head_dim"] = head_dim;
  j["qk_rope_head_dim"] = rope_head_dim;
  j["q_lora_rank"] = q_lora_rank;
  j["o_groups"] = o_groups;
  j["o_lora_rank"] = o_lora_rank;
  j["sliding_window"] = sliding_window;
  j["n_routed_experts"] = n_routed_experts;
  j["n_shared_experts"] = n_shared_experts;
  j["num_experts_per_tok"] = experts_per_token;
  j["moe_intermediate_size"] = moe_inter_dim;
  j["index_n_heads"] = index_n_heads;
  j["index_head_dim"] = index_head_dim;
  j["index_topk"] = index_topk;
  j["hc_mult"] = hc_mult;
  j["hc_sinkhorn_iters"] = hc_sinkhorn_iters;
  j["hc_eps"] = hc_eps;
  j["rms_norm_eps"] = rms_norm_eps;
  j["routed_scaling_factor"] = routed_scaling_factor;
  j["swiglu_limit"] = swiglu_limit;
  j["scoring_func"] = scoring_func;
  j["norm_topk_prob"] = true;
  j["topk_method"] = "noaux_tc";
  j["hidden_act"] = "silu";
  j["tie_word_embeddings"] = false;
  j["torch_dtype"] = "bfloat16";
  j["max_position_embeddings"] = max_position_embeddings;
  j["bos_token_id"] = bos_token_id;
  j["eos_token_id"] = eos_token_id;
  j["rope_theta"] = rope_theta;
  j["compress_rope_theta"] = compress_rope_theta;
  if (rope_original_max_position > 0)
    j["rope_scaling"] = {{"type", "yarn"},
                         {"factor", rope_factor},
                         {"original_max_position_embeddings", rope_original_max_position},
                         {"beta_fast", rope_beta_fast},
                         {"beta_slow", rope_beta_slow}};
  j["quantization_config"] = {{"activation_scheme", "dynamic"},
                              {"fmt", "e4m3"},
                              {"quant_method", "fp8"},
                              {"scale_fmt", "ue8m0"},
                              {"weight_block_size", {128, 128}}};
  json ratios = json::array();
  for (const auto& b : blocks) ratios.push_back(b.compress_ratio);
  j["compress_ratios"] = ratios;
  const int64_t hash_prefix = num_hash_layers();
  bool hash_is_prefix = true;
  for (int64_t i = 0; i < num_layers; ++i) hash_is_prefix &= blocks[i].hash_routed == (i < hash_prefix);
  if (hash_is_prefix) {
    j["num_hash_layers"] = hash_prefix;
  } else {
    json types = json::array();
    for (int64_t i = 0; i < num_layers; ++i) types.push_back(blocks[i].hash_routed ? "hash_moe" : "moe");
    j["mlp_layer_types"] = types;
  }
  return j;
}

int64_t Config::count_blocks(AttentionKind kind, bool mtp) const {
  int64_t n = 0;
  for (const auto& b : blocks) n += b.attention == kind && b.mtp == mtp;
  return n;
}

int64_t Config::num_hash_layers() const {
  int64_t n = 0;
  for (const auto& b : blocks) n += b.hash_routed;
  return n;
}

std::string Config::block_prefix(int64_t block) const {
  return block < num_layers ? fmt::format("layers.{}.", block) : fmt::format("mtp.{}.", block - num_layers);
}

}  // namespace plumb::dsv4
