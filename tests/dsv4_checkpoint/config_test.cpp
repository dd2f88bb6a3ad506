// DeepSeek-V4 config parsing: the real release config.json, the same model in HF deepseek_v4 spelling, and
// validation errors that name the field.
#include <gmock/gmock.h>

#include <fstream>

#include "base/error.h"
#include "model/dsv4/config.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using dsv4::AttentionKind;
using dsv4::Config;
using nlohmann::json;
using ::testing::HasSubstr;

json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

std::string error_of_config(const json& j) {
  try {
    Config::from_json(j);
  } catch (const plumb::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "config accepted: " << j.dump();
  return {};
}

// Every field, so two configs can be compared whole.
std::string describe(const Config& c) {
  std::string s = fmt::format(
      "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}|",
      c.vocab_size, c.hidden_size, c.num_layers, c.num_mtp_layers, c.num_heads, c.head_dim, c.rope_head_dim,
      c.q_lora_rank, c.o_groups, c.o_lora_rank, c.sliding_window, c.n_routed_experts, c.n_shared_experts,
      c.experts_per_token, c.moe_inter_dim, c.index_n_heads, c.index_head_dim, c.index_topk, c.hc_mult,
      c.hc_sinkhorn_iters, c.hc_eps, c.rms_norm_eps, c.routed_scaling_factor, c.swiglu_limit, c.scoring_func,
      c.rope_theta, c.compress_rope_theta, c.rope_factor, c.rope_original_max_position, c.rope_beta_fast,
      c.rope_beta_slow, c.max_position_embeddings, c.bos_token_id, c.eos_token_id, c.blocks.size());
  for (const auto& b : c.blocks)
    s += fmt::format("{}{}{}{},", int(b.attention), b.compress_ratio, b.hash_routed, b.mtp);
  return s;
}

json release_config() {
  const auto dir = fixtures_dir();
  return dir ? read_json(*dir / "dsv4-flash" / "config.json") : json();
}

TEST(Dsv4Config, ReleaseConfig) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const Config c = Config::from_json(release_config());
  EXPECT_EQ(c.hidden_size, 4096);
  EXPECT_EQ(c.num_layers, 43);
  EXPECT_EQ(c.num_mtp_layers, 1);
  EXPECT_EQ(c.num_heads, 64);
  EXPECT_EQ(c.head_dim, 512);
  EXPECT_EQ(c.rope_head_dim, 64);
  EXPECT_EQ(c.vocab_size, 129280);
  EXPECT_EQ(c.n_routed_experts, 256);
  EXPECT_EQ(c.experts_per_token, 6);
  EXPECT_EQ(c.rope_theta, 10000);
  EXPECT_EQ(c.compress_rope_theta, 160000);
  EXPECT_EQ(c.rope_factor, 16);
  EXPECT_EQ(c.rope_original_max_position, 65536);
  ASSERT_EQ(c.blocks.size(), 44u);
  // DSV4.md: layers 0, 1 and the MTP block are window-only; then CSA (4) and HCA (128) alternate; hash layers 0..2.
  for (int i = 0; i < 44; ++i) {
    const auto& b = c.blocks[size_t(i)];
    const int want_ratio = (i < 2 || i == 43) ? 0 : (i % 2 == 0 ? 4 : 128);
    EXPECT_EQ(b.compress_ratio, want_ratio) << i;
    EXPECT_EQ(b.attention, want_ratio == 0   ? AttentionKind::window
                           : want_ratio == 4 ? AttentionKind::csa
                                             : AttentionKind::hca)
        << i;
    EXPECT_EQ(b.hash_routed, i < 3) << i;
    EXPECT_EQ(b.mtp, i == 43) << i;
  }
  EXPECT_EQ(c.count_blocks(AttentionKind::csa), 21);
  EXPECT_EQ(c.count_blocks(AttentionKind::hca), 20);
  EXPECT_EQ(c.block_prefix(42), "layers.42.");
  EXPECT_EQ(c.block_prefix(43), "mtp.0.");
}

// The same model as HF transformers' deepseek_v4 config spells it.
json hf_spelling(json j) {
  json layer_types = json::array(), mlp_types = json::array();
  for (int i = 0; i < 43; ++i) {
    const int r = j["compress_ratios"][i];
    layer_types.push_back(r == 0   ? "sliding_attention"
                          : r == 4 ? "compressed_sparse_attention"
                                   : "heavily_compressed_attention");
    mlp_types.push_back(i < 3 ? "hash_moe" : "moe");
  }
  for (const char* legacy :
       {"compress_ratios", "num_hash_layers", "qk_rope_head_dim", "rope_scaling", "compress_rope_theta", "rope_theta"})
    j.erase(legacy);
  j["layer_types"] = layer_types;
  j["mlp_layer_types"] = mlp_types;
  j["compress_rates"] = {{"compressed_sparse_attention", 4}, {"heavily_compressed_attention", 128}};
  j["partial_rotary_factor"] = 0.125;
  j["rope_parameters"] = {
      {"main", {{"rope_type", "default"}, {"rope_theta", 10000.0}, {"partial_rotary_factor", 0.125}}},
      {"compress",
       {{"rope_type", "yarn"},
        {"rope_theta", 160000.0},
        {"factor", 16.0},
        {"original_max_position_embeddings", 65536},
        {"beta_fast", 32.0},
        {"beta_slow", 1.0},
        {"attention_factor", 1.0}}}};
  return j;
}

TEST(Dsv4Config, HfSpellingReadsTheSameModel) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const Config release = Config::from_json(release_config());
  const Config hf = Config::from_json(hf_spelling(release_config()));
  EXPECT_EQ(describe(hf), describe(release));
}

TEST(Dsv4Config, BothSpellingsMustAgree) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  json j = hf_spelling(release_config());
  j["compress_ratios"] = release_config()["compress_ratios"];
  j["compress_ratios"][5] = 4;
  EXPECT_THAT(error_of_config(j), HasSubstr("layer_types[5] (ratio 128) disagrees with compress_ratios[5] = 4"));
  j = hf_spelling(release_config());
  j["num_hash_layers"] = 2;
  EXPECT_THAT(error_of_config(j), HasSubstr("mlp_layer_types disagrees with num_hash_layers"));
}

TEST(Dsv4Config, ToJsonReadsBackEqual) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const Config c = Config::from_json(release_config());
  EXPECT_EQ(describe(Config::from_json(c.to_json())), describe(c));
}

TEST(Dsv4Config, ErrorsNameTheField) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const json base = release_config();
  const auto with = [&](const char* field, const json& value) {
    json j = base;
    if (value.is_null()) {
      j.erase(field);
    } else {
      j[field] = value;
    }
    return error_of_config(j);
  };
  EXPECT_THAT(with("hidden_size", nullptr), HasSubstr("config.json: missing field hidden_size"));
  EXPECT_THAT(with("hidden_size", "big"), HasSubstr("hidden_size must be an integer"));
  EXPECT_THAT(with("num_attention_heads", 0), HasSubstr("num_attention_heads must be positive"));
  EXPECT_THAT(with("compress_ratios", json::array({0, 4})), HasSubstr("compress_ratios has 2 entries"));
  EXPECT_THAT(with("compress_ratios", nullptr), HasSubstr("missing field compress_ratios (or layer_types)"));
  EXPECT_THAT(with("num_hash_layers", 50), HasSubstr("num_hash_layers = 50 must be between 0 and"));
  EXPECT_THAT(with("num_hash_layers", nullptr), HasSubstr("missing field num_hash_layers (or mlp_layer_types)"));
  EXPECT_THAT(with("o_groups", 7), HasSubstr("num_attention_heads (64) must be a multiple of o_groups (7)"));
  EXPECT_THAT(with("hidden_size", 4100), HasSubstr("hidden_size (4100) must be a multiple of 32"));
  EXPECT_THAT(with("num_key_value_heads", 8), HasSubstr("num_key_value_heads is 8"));
  EXPECT_THAT(with("n_shared_experts", 2), HasSubstr("n_shared_experts is 2"));
  EXPECT_THAT(with("scoring_func", "softmax"), HasSubstr("scoring_func is \"softmax\""));
  EXPECT_THAT(with("num_experts_per_tok", 300), HasSubstr("num_experts_per_tok (300) exceeds n_routed_experts"));
  EXPECT_THAT(with("qk_rope_head_dim", nullptr), HasSubstr("missing field qk_rope_head_dim"));
  EXPECT_THAT(with("compress_rope_theta", nullptr), HasSubstr("missing field compress_rope_theta"));
  EXPECT_THAT(with("quantization_config", {{"quant_method", "fp8"}, {"weight_block_size", {64, 64}}}),
              HasSubstr("quantization_config.weight_block_size is [64,64]"));
  json ratios = base["compress_ratios"];
  ratios[7] = -1;
  EXPECT_THAT(with("compress_ratios", ratios), HasSubstr("compress_ratios[7] = -1 is out of range"));
  EXPECT_THAT(error_of_config(json::array()), HasSubstr("not a JSON object"));
}

TEST(Dsv4Config, HfErrorsNameTheField) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  json j = hf_spelling(release_config());
  j["layer_types"][3] = "full_attention";
  EXPECT_THAT(error_of_config(j), HasSubstr("layer_types[3] is \"full_attention\""));
  j = hf_spelling(release_config());
  j["compress_rates"]["compressed_sparse_attention"] = 2;
  EXPECT_THAT(error_of_config(j), HasSubstr("compress_rates.compressed_sparse_attention is 2"));
  j = hf_spelling(release_config());
  j["mlp_layer_types"].erase(0);
  EXPECT_THAT(error_of_config(j), HasSubstr("mlp_layer_types must be an array of num_hidden_layers (43) entries"));
  j = hf_spelling(release_config());
  j["mlp_layer_types"][4] = "dense";
  EXPECT_THAT(error_of_config(j), HasSubstr("mlp_layer_types[4] is \"dense\""));
}

TEST(Dsv4Config, HcaRatioOtherThan128AndHashLayersAnywhere) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  json j = hf_spelling(release_config());
  j["compress_rates"]["heavily_compressed_attention"] = 16;
  j["mlp_layer_types"][10] = "hash_moe";
  const Config c = Config::from_json(j);
  EXPECT_EQ(c.blocks[3].compress_ratio, 16);
  EXPECT_EQ(c.blocks[3].attention, AttentionKind::hca);
  EXPECT_TRUE(c.blocks[10].hash_routed);
  EXPECT_EQ(c.num_hash_layers(), 4);
  // A non-prefix hash schedule is written back as mlp_layer_types.
  EXPECT_EQ(describe(Config::from_json(c.to_json())), describe(c));
}

}  // namespace
}  // namespace plumb::test
