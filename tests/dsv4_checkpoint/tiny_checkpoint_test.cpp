// gen-tiny: complete, deterministic, in the release format, covering every code path, with weights decoded and
// checked against properties of the formats (tight power-of-two scales, distinct hash experts, sane magnitudes).
#include <gmock/gmock.h>

#include <cmath>
#include <cstring>
#include <map>

#include "base/error.h"
#include "base/number_formats.h"
#include "io/checkpoint_folder.h"
#include "model/dsv4/checkpoint_check.h"
#include "model/dsv4/tensor_plan.h"
#include "model/dsv4/tiny_checkpoint.h"
#include "test_support.h"
#include "tiny_helpers.h"

namespace plumb::test {
namespace {

using dsv4::AttentionKind;
using dsv4::TensorKind;

class TinyCheckpoint : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new ScratchDir();
    dsv4::write_tiny_checkpoint(dir(), dsv4::TinySpec{});
  }
  static void TearDownTestSuite() { delete scratch_; }
  static std::filesystem::path dir() { return scratch_->path() / "tiny"; }
  static ScratchDir* scratch_;
};
ScratchDir* TinyCheckpoint::scratch_ = nullptr;

TEST_F(TinyCheckpoint, WritesEveryFileAndChecksClean) {
  for (const char* f :
       {"config.json", "generation_config.json", "tokenizer.json", "model.safetensors.index.json", kShard1, kShard2})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir() / f)) << f;
  const auto folder = io::CheckpointFolder::open(dir());
  const auto config = dsv4::Config::from_json(folder.config());
  const auto report = dsv4::check_checkpoint(folder, config);
  EXPECT_TRUE(report.ok()) << ::testing::PrintToString(report.problems);
  EXPECT_TRUE(report.unexpected.empty()) << ::testing::PrintToString(report.unexpected);
  EXPECT_EQ(report.tensors_ok, dsv4::plan_tensors(config).size());
  EXPECT_EQ(folder.files().size(), 2u);
  for (const auto& f : folder.files()) EXPECT_GT(f.tensors().size(), 50u) << f.path();
  const auto index = nlohmann::json::parse(read_text(dir() / "model.safetensors.index.json"));
  EXPECT_EQ(index["weight_map"].size(), folder.tensor_names().size());
}

TEST_F(TinyCheckpoint, ReachesEveryCodePath) {
  const auto config = dsv4::Config::from_json(nlohmann::json::parse(read_text(dir() / "config.json")));
  std::set<std::pair<AttentionKind, bool>> kinds_by_routing;
  std::set<int> ratios;
  for (const auto& b : config.blocks) {
    if (!b.mtp) kinds_by_routing.insert({b.attention, b.hash_routed});
    ratios.insert(b.compress_ratio);
  }
  EXPECT_TRUE(kinds_by_routing.count({AttentionKind::window, true}));
  EXPECT_TRUE(kinds_by_routing.count({AttentionKind::csa, true}));
  EXPECT_TRUE(kinds_by_routing.count({AttentionKind::csa, false}));
  EXPECT_TRUE(kinds_by_routing.count({AttentionKind::hca, false}));
  EXPECT_TRUE(kinds_by_routing.count({AttentionKind::window, false}));
  EXPECT_EQ(ratios, (std::set<int>{0, 4, 16}));
  EXPECT_EQ(config.num_mtp_layers, 1);
  EXPECT_TRUE(config.blocks.back().mtp);
  // A 64-token prompt crosses 8 windows and gives 16 CSA rows, more than the indexer keeps.
  EXPECT_LE(config.sliding_window * 8, 64);
  EXPECT_LT(config.index_topk, 64 / 4);
  EXPECT_GT(config.rope_original_max_position, 0);
  // Activations are quantized along K in blocks of 128: every FP8 and FP4 linear's widths are multiples of 128.
  for (const auto& t : dsv4::plan_tensors(config)) {
    if (t.kind == TensorKind::fp8_weight) {
      EXPECT_EQ(t.shape[0] % 128, 0) << t.name;
      EXPECT_EQ(t.shape[1] % 128, 0) << t.name;
    }
    if (t.kind == TensorKind::fp4_weight) {
      EXPECT_EQ(t.shape[1] * 2 % 128, 0) << t.name;
    }
  }
}

TEST_F(TinyCheckpoint, SpecialTokenIdsMatchTheTokenizer) {
  const auto tokenizer = nlohmann::json::parse(read_text(dir() / "tokenizer.json"));
  std::map<std::string, int64_t> added;
  for (const auto& t : tokenizer["added_tokens"]) added[t["content"]] = t["id"];
  const auto config = nlohmann::json::parse(read_text(dir() / "config.json"));
  const auto generation = nlohmann::json::parse(read_text(dir() / "generation_config.json"));
  EXPECT_EQ(config["bos_token_id"], added.at("<｜begin▁of▁sentence｜>"));
  EXPECT_EQ(config["eos_token_id"], added.at("<｜end▁of▁sentence｜>"));
  EXPECT_EQ(generation["bos_token_id"], config["bos_token_id"]);
  EXPECT_EQ(generation["eos_token_id"], config["eos_token_id"]);
  int64_t max_id = 0;
  for (const auto& [token, id] : tokenizer["model"]["vocab"].items()) max_id = std::max<int64_t>(max_id, id);
  for (const auto& [token, id] : added) max_id = std::max(max_id, id);
  EXPECT_EQ(max_id + 1, config["vocab_size"]);
}

TEST_F(TinyCheckpoint, Fp8WeightsHaveTightPowerOfTwoTileScales) {
  const auto folder = io::CheckpointFolder::open(dir());
  const auto config = dsv4::Config::from_json(folder.config());
  int checked = 0;
  for (const auto& t : dsv4::plan_tensors(config)) {
    if (t.kind != TensorKind::fp8_weight) continue;
    const auto w = folder.at(t.name).bytes();
    const auto s = folder.at(t.name.substr(0, t.name.size() - 6) + "scale").bytes();
    const int64_t out = t.shape[0], in = t.shape[1], tiles_in = (in + 127) / 128;
    double sum_sq = 0;
    for (int64_t bo = 0; bo < out / 128; ++bo)
      for (int64_t bi = 0; bi < tiles_in; ++bi) {
        const uint8_t scale = uint8_t(s[size_t(bo * tiles_in + bi)]);
        ASSERT_NE(scale, 255) << t.name;
        float amax = 0;
        for (int64_t r = bo * 128; r < bo * 128 + 128; ++r)
          for (int64_t k = bi * 128; k < std::min(in, bi * 128 + 128); ++k) {
            const uint8_t code = uint8_t(w[size_t(r * in + k)]);
            ASSERT_NE(code & 0x7f, 0x7f) << t.name << ": NaN code";
            const float v = e4m3_to_f32(code);
            amax = std::max(amax, std::fabs(v));
            sum_sq += std::pow(double(v) * e8m0_to_f64(scale), 2);
          }
        // The smallest power of two that fits: the tile's largest code uses the top half of e4m3's range.
        EXPECT_GE(amax, 224.0f) << t.name << " tile " << bo << "," << bi;
        EXPECT_LE(amax, 448.0f) << t.name;
      }
    // Dequantized weights have standard deviation close to 1/sqrt(fan_in).
    const double stddev = std::sqrt(sum_sq / double(out * in));
    EXPECT_NEAR(stddev * std::sqrt(double(in)), 1.0, 0.1) << t.name;
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

TEST_F(TinyCheckpoint, Fp4ExpertsHaveTightPowerOfTwoBlockScales) {
  const auto folder = io::CheckpointFolder::open(dir());
  const auto config = dsv4::Config::from_json(folder.config());
  int checked = 0;
  for (const auto& t : dsv4::plan_tensors(config)) {
    if (t.kind != TensorKind::fp4_weight) continue;
    const auto w = folder.at(t.name).bytes();
    const auto s = folder.at(t.name.substr(0, t.name.size() - 6) + "scale").bytes();
    const int64_t out = t.shape[0], in = t.shape[1] * 2;
    double sum_sq = 0;
    for (int64_t r = 0; r < out; ++r)
      for (int64_t b = 0; b < in / 32; ++b) {
        const uint8_t scale = uint8_t(s[size_t(r * (in / 32) + b)]);
        float amax = 0;
        for (int64_t k = b * 32; k < b * 32 + 32; ++k) {
          const uint8_t byte = uint8_t(w[size_t((r * in + k) / 2)]);
          const float v = e2m1_to_f32(k % 2 == 0 ? byte & 0x0F : byte >> 4);  // low nibble = even index
          amax = std::max(amax, std::fabs(v));
          sum_sq += std::pow(double(v) * e8m0_to_f64(scale), 2);
        }
        EXPECT_GE(amax, 3.0f) << t.name << " row " << r << " block " << b;
        EXPECT_LE(amax, 6.0f) << t.name;
      }
    const double stddev = std::sqrt(sum_sq / double(out * in));
    EXPECT_NEAR(stddev * std::sqrt(double(in)), 1.0, 0.2) << t.name;
    ++checked;
  }
  EXPECT_EQ(checked, 7 * 8 * 3);
}

TEST_F(TinyCheckpoint, PlainTensorsAreFiniteAndScaledForO1Activations) {
  const auto folder = io::CheckpointFolder::open(dir());
  const auto config = dsv4::Config::from_json(folder.config());
  for (const auto& t : dsv4::plan_tensors(config)) {
    if (t.dtype != DType::dtype_bf16 && t.dtype != DType::dtype_f32) continue;
    const auto b = folder.at(t.name).bytes();
    const int64_t n = int64_t(t.nbytes() / dtype_size(t.dtype));
    float amax = 0, sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      float v;
      if (t.dtype == DType::dtype_bf16) {
        v = bf16_to_f32(uint16_t(uint8_t(b[size_t(2 * i)]) | uint8_t(b[size_t(2 * i + 1)]) << 8));
      } else {
        uint32_t bits = 0;
        for (int k = 3; k >= 0; --k) bits = bits << 8 | uint8_t(b[size_t(4 * i + k)]);
        std::memcpy(&v, &bits, 4);
      }
      ASSERT_TRUE(std::isfinite(v)) << t.name;
      amax = std::max(amax, std::fabs(v));
      sum += v;
    }
    const float mean = sum / float(n);
    switch (t.kind) {
      case TensorKind::norm:
        EXPECT_NEAR(mean, 1.0f, 0.02f) << t.name;
        EXPECT_LT(amax, 1.1f) << t.name;
        break;
      case TensorKind::embedding: EXPECT_LT(amax, 1.8f) << t.name; break;
      case TensorKind::bf16_linear: EXPECT_LT(amax * std::sqrt(float(t.shape[1])), 1.8f) << t.name; break;
      case TensorKind::hc_fn: EXPECT_LT(amax * std::sqrt(float(t.shape[1])), 0.9f) << t.name; break;
      default: EXPECT_LT(amax, 1.0f) << t.name;
    }
  }
}

TEST_F(TinyCheckpoint, HashTablesHoldDistinctExpertsAndUseThemAll) {
  const auto folder = io::CheckpointFolder::open(dir());
  for (const char* name : {"layers.0.ffn.gate.tid2eid", "layers.1.ffn.gate.tid2eid"}) {
    const auto ref = folder.at(name);
    ASSERT_EQ(ref.info->shape, (std::vector<int64_t>{1024, 2}));
    std::vector<int> uses(8, 0);
    for (int64_t row = 0; row < 1024; ++row) {
      int64_t ids[2];
      std::memcpy(ids, ref.bytes().data() + row * 16, 16);
      ASSERT_NE(ids[0], ids[1]) << name << " row " << row;
      for (int64_t id : ids) {
        ASSERT_TRUE(id >= 0 && id < 8) << name << " row " << row;
        ++uses[size_t(id)];
      }
    }
    for (int e = 0; e < 8; ++e) EXPECT_GT(uses[size_t(e)], 150) << name << " expert " << e;
  }
  EXPECT_FALSE(folder.find("layers.2.ffn.gate.tid2eid"));
}

TEST(TinyCheckpointDeterminism, SameSeedByteIdenticalOtherSeedDifferent) {
  ScratchDir scratch;
  dsv4::TinySpec spec;
  spec.seed = 42;
  dsv4::write_tiny_checkpoint(scratch.path() / "a", spec);
  dsv4::write_tiny_checkpoint(scratch.path() / "b", spec);
  EXPECT_EQ(folder_digest(scratch.path() / "a"), folder_digest(scratch.path() / "b"));
  spec.seed = 43;
  dsv4::write_tiny_checkpoint(scratch.path() / "c", spec);
  EXPECT_NE(read_text(scratch.path() / "a" / kShard1), read_text(scratch.path() / "c" / kShard1));
  EXPECT_EQ(read_text(scratch.path() / "a" / "config.json"), read_text(scratch.path() / "c" / "config.json"));
  EXPECT_EQ(read_text(scratch.path() / "a" / "tokenizer.json"), read_text(scratch.path() / "c" / "tokenizer.json"));
}

TEST(TinyCheckpointSpec, OtherShapesAndShardCountsCheckClean) {
  ScratchDir scratch;
  dsv4::TinySpec spec;
  spec.compress_ratios = {0, 128, 4};
  spec.hash_layers = 1;
  spec.shards = 3;
  spec.routed_experts = 4;
  dsv4::write_tiny_checkpoint(scratch.path() / "t", spec);
  const auto folder = io::CheckpointFolder::open(scratch.path() / "t");
  EXPECT_EQ(folder.files().size(), 3u);
  const auto report = dsv4::check_checkpoint(folder, dsv4::Config::from_json(folder.config()));
  EXPECT_TRUE(report.ok()) << ::testing::PrintToString(report.problems);
}

TEST(TinyCheckpointSpec, RefusesANonEmptyFolder) {
  ScratchDir scratch;
  write_text(scratch.path() / "keep.txt", "precious");
  try {
    dsv4::write_tiny_checkpoint(scratch.path(), dsv4::TinySpec{});
    ADD_FAILURE() << "wrote into a non-empty folder";
  } catch (const plumb::Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("exists and is not an empty folder"));
  }
  EXPECT_EQ(read_text(scratch.path() / "keep.txt"), "precious");
}

}  // namespace
}  // namespace plumb::test
