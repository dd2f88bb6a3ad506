// The tensor plan of the real release config, against independent facts: the release's published size (~160 GB),
// DSV4.md's bytes per decoded token (~11-13 GB), the 82 distinct name patterns of the release's
// model.safetensors.index.json, and shapes worked out by hand from the release's inference/model.py.
#include <gmock/gmock.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "model/dsv4/tensor_plan.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using dsv4::Config;
using dsv4::PlannedTensor;

Config release(const std::filesystem::path& fixtures) {
  std::ifstream in(fixtures / "dsv4-flash" / "config.json");
  return Config::from_json(nlohmann::json::parse(in));
}

// Key patterns of DeepSeek-V4-Flash's model.safetensors.index.json with every number replaced by 0 (as published
// in a public list of the release's 82 patterns).
const std::set<std::string> kReleasePatterns = {
    "embed.weight", "hc_head_base", "hc_head_fn", "hc_head_scale", "head.weight", "norm.weight",
    "layers.0.attn.attn_sink", "layers.0.attn.compressor.ape", "layers.0.attn.compressor.norm.weight",
    "layers.0.attn.compressor.wgate.weight", "layers.0.attn.compressor.wkv.weight",
    "layers.0.attn.indexer.compressor.ape", "layers.0.attn.indexer.compressor.norm.weight",
    "layers.0.attn.indexer.compressor.wgate.weight", "layers.0.attn.indexer.compressor.wkv.weight",
    "layers.0.attn.indexer.weights_proj.weight", "layers.0.attn.indexer.wq_b.scale",
    "layers.0.attn.indexer.wq_b.weight", "layers.0.attn.kv_norm.weight", "layers.0.attn.q_norm.weight",
    "layers.0.attn.wkv.scale", "layers.0.attn.wkv.weight", "layers.0.attn.wo_a.scale", "layers.0.attn.wo_a.weight",
    "layers.0.attn.wo_b.scale", "layers.0.attn.wo_b.weight", "layers.0.attn.wq_a.scale", "layers.0.attn.wq_a.weight",
    "layers.0.attn.wq_b.scale", "layers.0.attn.wq_b.weight", "layers.0.attn_norm.weight",
    "layers.0.ffn.experts.0.w0.scale", "layers.0.ffn.experts.0.w0.weight", "layers.0.ffn.gate.bias",
    "layers.0.ffn.gate.tid2eid", "layers.0.ffn.gate.weight", "layers.0.ffn.shared_experts.w0.scale",
    "layers.0.ffn.shared_experts.w0.weight", "layers.0.ffn_norm.weight", "layers.0.hc_attn_base",
    "layers.0.hc_attn_fn", "layers.0.hc_attn_scale", "layers.0.hc_ffn_base", "layers.0.hc_ffn_fn",
    "layers.0.hc_ffn_scale", "mtp.0.attn.attn_sink", "mtp.0.attn.kv_norm.weight", "mtp.0.attn.q_norm.weight",
    "mtp.0.attn.wkv.scale", "mtp.0.attn.wkv.weight", "mtp.0.attn.wo_a.scale", "mtp.0.attn.wo_a.weight",
    "mtp.0.attn.wo_b.scale", "mtp.0.attn.wo_b.weight", "mtp.0.attn.wq_a.scale", "mtp.0.attn.wq_a.weight",
    "mtp.0.attn.wq_b.scale", "mtp.0.attn.wq_b.weight", "mtp.0.attn_norm.weight", "mtp.0.e_proj.scale",
    "mtp.0.e_proj.weight", "mtp.0.enorm.weight", "mtp.0.ffn.experts.0.w0.scale", "mtp.0.ffn.experts.0.w0.weight",
    "mtp.0.ffn.gate.bias", "mtp.0.ffn.gate.weight", "mtp.0.ffn.shared_experts.w0.scale",
    "mtp.0.ffn.shared_experts.w0.weight", "mtp.0.ffn_norm.weight", "mtp.0.h_proj.scale", "mtp.0.h_proj.weight",
    "mtp.0.hc_attn_base", "mtp.0.hc_attn_fn", "mtp.0.hc_attn_scale", "mtp.0.hc_ffn_base", "mtp.0.hc_ffn_fn",
    "mtp.0.hc_ffn_scale", "mtp.0.hc_head_base", "mtp.0.hc_head_fn", "mtp.0.hc_head_scale", "mtp.0.hnorm.weight",
    "mtp.0.norm.weight"};

TEST(Dsv4TensorPlan, NamePatternsAreTheReleases) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  ASSERT_EQ(kReleasePatterns.size(), 82u);
  const std::regex digits("[0-9]+");
  std::set<std::string> patterns;
  for (const auto& t : dsv4::plan_tensors(release(fixtures))) {
    std::string p = std::regex_replace(t.name, digits, "0");
    if (const size_t at = p.find("tid0eid"); at != std::string::npos) p[at + 3] = '2';  // the list keeps tid2eid
    patterns.insert(p);
  }
  std::vector<std::string> extra, missing;
  std::set_difference(patterns.begin(), patterns.end(), kReleasePatterns.begin(), kReleasePatterns.end(),
                      std::back_inserter(extra));
  std::set_difference(kReleasePatterns.begin(), kReleasePatterns.end(), patterns.begin(), patterns.end(),
                      std::back_inserter(missing));
  EXPECT_TRUE(extra.empty()) << "planned but not in the release: " << ::testing::PrintToString(extra);
  EXPECT_TRUE(missing.empty()) << "in the release but not planned: " << ::testing::PrintToString(missing);
}

TEST(Dsv4TensorPlan, ReleaseTotalIsAbout160GB) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const Config c = release(fixtures);
  const auto w = dsv4::weight_bytes(c, dsv4::plan_tensors(c));
  EXPECT_NEAR(double(w.total), 160e9, 0.01 * 160e9);
  // DSV4.md: weights read per decoded token at one row are about 11-13 GB.
  EXPECT_GT(w.per_token, 11e9);
  EXPECT_LT(w.per_token, 13e9);
}

TEST(Dsv4TensorPlan, BytesPerTokenByHandForTheRelease) {
  // One token reads, per block, the non-routed weights and 6 of 256 experts; an expert's three FP4 matrices are
  // 3 * (2048 * 2048 packed bytes + 2048 * 128 scales) = 13,369,344 bytes.
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const Config c = release(fixtures);
  const auto plan = dsv4::plan_tensors(c);
  const auto w = dsv4::weight_bytes(c, plan);
  uint64_t routed_main = 0;
  for (const auto& t : plan)
    if (t.expert >= 0 && t.block < 43) routed_main += t.nbytes();
  EXPECT_EQ(routed_main, 43ull * 256 * 13369344);
  uint64_t non_routed_main = 0;
  for (const auto& t : plan)
    if (t.expert < 0 && t.block < 43) non_routed_main += t.nbytes();
  const uint64_t embed = 129280ull * 4096 * 2, tid2eid = 129280ull * 6 * 8;
  const uint64_t expected = non_routed_main - embed - 3 * tid2eid + 4096 * 2 + 3 * 6 * 8 + 43ull * 6 * 13369344;
  EXPECT_EQ(w.per_token, expected);
}

TEST(Dsv4TensorPlan, ReleaseShapesWorkedOutFromModelPy) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  std::map<std::string, PlannedTensor> by_name;
  for (auto& t : dsv4::plan_tensors(release(fixtures))) by_name.emplace(t.name, t);
  struct Expect {
    const char* name;
    DType dtype;
    std::vector<int64_t> shape;
  };
  const DType e4m3 = DType::dtype_f8_e4m3, e8m0 = DType::dtype_f8_e8m0, bf16 = DType::dtype_bf16,
              f32 = DType::dtype_f32;
  const std::vector<Expect> expected = {
      {"embed.weight", bf16, {129280, 4096}},
      {"head.weight", bf16, {129280, 4096}},
      {"hc_head_fn", f32, {4, 16384}},
      {"hc_head_scale", f32, {1}},
      {"layers.0.attn.wq_a.weight", e4m3, {1024, 4096}},
      {"layers.0.attn.wq_a.scale", e8m0, {8, 32}},
      {"layers.0.attn.wq_b.weight", e4m3, {32768, 1024}},
      {"layers.0.attn.wq_b.scale", e8m0, {256, 8}},
      {"layers.0.attn.wkv.weight", e4m3, {512, 4096}},
      {"layers.0.attn.wo_a.weight", e4m3, {8192, 4096}},  // 8 groups x 1024 rank, 64*512/8 inputs
      {"layers.0.attn.wo_a.scale", e8m0, {64, 32}},
      {"layers.0.attn.wo_b.weight", e4m3, {4096, 8192}},
      {"layers.0.attn.attn_sink", f32, {64}},
      {"layers.0.attn.kv_norm.weight", bf16, {512}},
      {"layers.0.hc_attn_fn", f32, {24, 16384}},  // (2 + 4) * 4 mixes
      {"layers.0.hc_ffn_base", f32, {24}},
      {"layers.0.hc_ffn_scale", f32, {3}},
      {"layers.0.ffn.gate.weight", bf16, {256, 4096}},
      {"layers.0.ffn.gate.tid2eid", DType::dtype_i64, {129280, 6}},
      {"layers.3.ffn.gate.bias", f32, {256}},
      {"layers.0.ffn.experts.255.w1.weight", DType::dtype_i8, {2048, 2048}},
      {"layers.0.ffn.experts.0.w1.scale", e8m0, {2048, 128}},
      {"layers.0.ffn.experts.0.w2.weight", DType::dtype_i8, {4096, 1024}},
      {"layers.0.ffn.experts.0.w2.scale", e8m0, {4096, 64}},
      {"layers.0.ffn.shared_experts.w2.weight", e4m3, {4096, 2048}},
      {"layers.0.ffn.shared_experts.w2.scale", e8m0, {32, 16}},
      {"layers.2.attn.compressor.wkv.weight", bf16, {1024, 4096}},  // ratio 4: overlapping, 2 x 512
      {"layers.2.attn.compressor.wgate.weight", bf16, {1024, 4096}},
      {"layers.2.attn.compressor.ape", f32, {4, 1024}},
      {"layers.2.attn.compressor.norm.weight", bf16, {512}},
      {"layers.3.attn.compressor.wkv.weight", bf16, {512, 4096}},  // ratio 128: no overlap
      {"layers.3.attn.compressor.ape", f32, {128, 512}},
      {"layers.2.attn.indexer.wq_b.weight", e4m3, {8192, 1024}},  // 64 heads x 128
      {"layers.2.attn.indexer.wq_b.scale", e8m0, {64, 8}},
      {"layers.2.attn.indexer.weights_proj.weight", bf16, {64, 4096}},
      {"layers.2.attn.indexer.compressor.wkv.weight", bf16, {256, 4096}},
      {"layers.2.attn.indexer.compressor.ape", f32, {4, 256}},
      {"layers.2.attn.indexer.compressor.norm.weight", bf16, {128}},
      {"mtp.0.e_proj.weight", e4m3, {4096, 4096}},
      {"mtp.0.h_proj.scale", e8m0, {32, 32}},
      {"mtp.0.enorm.weight", bf16, {4096}},
      {"mtp.0.hc_head_fn", f32, {4, 16384}},
      {"mtp.0.hc_head_base", f32, {4}},
      {"mtp.0.ffn.gate.bias", f32, {256}},
  };
  for (const auto& e : expected) {
    const auto it = by_name.find(e.name);
    ASSERT_NE(it, by_name.end()) << e.name;
    EXPECT_EQ(it->second.dtype, e.dtype) << e.name;
    EXPECT_EQ(it->second.shape, e.shape) << e.name;
  }
  // Hash layers route by table, not by bias; window-only blocks have no compressor; HCA blocks no indexer.
  for (const char* absent : {"layers.2.ffn.gate.bias", "layers.3.ffn.gate.tid2eid", "layers.0.attn.compressor.ape",
                             "layers.3.attn.indexer.wq_b.weight", "mtp.0.attn.compressor.ape",
                             "mtp.0.ffn.gate.tid2eid", "layers.0.ffn.experts.256.w1.weight"})
    EXPECT_EQ(by_name.count(absent), 0u) << absent;
}

TEST(Dsv4TensorPlan, TensorCountByHand) {
  // Per block: attention 13 (sink, 5 FP8 linears + scales, 2 norms), MoE gate 2 + experts 256 * 6 + shared 6,
  // 2 norms, 6 mHC = 1565; CSA adds compressor 4 + indexer 2 + 1 + 4 = 11, HCA adds 4. Model-wide 6.
  // MTP adds e_proj, h_proj (+ scales), 3 norms, 3 head mixes = 10.
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const auto plan = dsv4::plan_tensors(release(fixtures));
  EXPECT_EQ(plan.size(), size_t(6 + 44 * 1565 + 21 * 11 + 20 * 4 + 10));
}

}  // namespace
}  // namespace plumb::test
