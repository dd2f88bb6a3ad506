// The checkpoint checker on damaged copies of a tiny checkpoint: every problem reported at once, each naming the
// tensor (and file).
#include <gmock/gmock.h>

#include "io/checkpoint_folder.h"
#include "model/dsv4/checkpoint_check.h"
#include "model/dsv4/tiny_checkpoint.h"
#include "test_support.h"
#include "tiny_helpers.h"

namespace plumb::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One generated checkpoint per suite; each test damages its own copy.
class CheckpointCheck : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    original_ = new ScratchDir();
    dsv4::write_tiny_checkpoint(original_->path() / "tiny", dsv4::TinySpec{});
  }
  static void TearDownTestSuite() { delete original_; }
  void SetUp() override { copy_folder(original_->path() / "tiny", dir()); }
  std::filesystem::path dir() const { return scratch_.path() / "tiny"; }
  dsv4::CheckReport check() const {
    const auto folder = io::CheckpointFolder::open(dir());
    return dsv4::check_checkpoint(folder, dsv4::Config::from_json(folder.config()));
  }
  ScratchDir scratch_;
  static ScratchDir* original_;
};
ScratchDir* CheckpointCheck::original_ = nullptr;

TEST_F(CheckpointCheck, DeletedTensorWrongScaleShapeAndTruncatedShardAllReported) {
  break_tiny_copy(dir());
  const auto report = check();
  ASSERT_EQ(report.problems.size(), 3u) << ::testing::PrintToString(report.problems);
  // Folder problems come first: the truncated shard, naming the file and the first tensor past the end.
  EXPECT_THAT(report.problems[0], HasSubstr((dir() / kShard2).string() + ": tensor "));
  EXPECT_THAT(report.problems[0], HasSubstr("run past the end of the data section"));
  EXPECT_THAT(report.problems, ::testing::Contains(std::string("tensor ") + kDeletedTensor + ": missing"));
  EXPECT_THAT(report.problems, ::testing::Contains(std::string("tensor ") + kReshapedScale + " (" + kShard1 +
                                                   "): shape [2, 2], expected [4, 1]"));
}

TEST_F(CheckpointCheck, WrongDtypeAndShapeOfOneTensorAreTwoProblems) {
  rewrite_shard(dir() / kShard1, [](std::vector<io::TensorData>& tensors) {
    for (auto& t : tensors)
      if (t.name == "layers.0.attn.attn_sink") {  // planned F32 [4]
        t.dtype = DType::dtype_bf16;
        t.shape = {8};
      }
  });
  EXPECT_THAT(
      check().problems,
      ElementsAre("tensor layers.0.attn.attn_sink (model-00001-of-00002.safetensors): dtype BF16, expected F32",
                  "tensor layers.0.attn.attn_sink (model-00001-of-00002.safetensors): shape [8], expected [4]"));
}

TEST_F(CheckpointCheck, ModelPrefixedNamesInOneFile) {
  std::vector<io::TensorData> all;
  for (const char* shard : {kShard1, kShard2})
    for (auto& t : read_tensors(dir() / shard)) {
      t.name = "model." + t.name;
      all.push_back(std::move(t));
    }
  for (const char* f : {kShard1, kShard2, "model.safetensors.index.json"}) std::filesystem::remove(dir() / f);
  io::write_safetensors(dir() / "model.safetensors", all);
  const auto report = check();
  EXPECT_TRUE(report.ok()) << ::testing::PrintToString(report.problems);
  EXPECT_TRUE(report.unexpected.empty());
}

TEST_F(CheckpointCheck, HashTableWithARepeatedOrUnknownExpert) {
  rewrite_shard(dir() / kShard1, [](std::vector<io::TensorData>& tensors) {
    for (auto& t : tensors) {
      if (t.name == "layers.0.ffn.gate.tid2eid") {  // row 5 := [3, 3]
        for (int k = 0; k < 16; ++k) t.bytes[size_t(5 * 16 + k)] = std::byte(k % 8 == 0 ? 3 : 0);
      }
      if (t.name == "layers.1.ffn.gate.tid2eid") t.bytes[size_t(7 * 16)] = std::byte(9);  // row 7, expert 9 of 8
    }
  });
  EXPECT_THAT(check().problems,
              ElementsAre(HasSubstr("tensor layers.0.ffn.gate.tid2eid (model-00001-of-00002.safetensors): row 5 names "
                                    "expert 3 twice"),
                          HasSubstr("tensor layers.1.ffn.gate.tid2eid (model-00001-of-00002.safetensors): row 7 holds "
                                    "expert id 9 (n_routed_experts is 8)")));
}

TEST_F(CheckpointCheck, ExtraTensorsAreListedNotCounted) {
  rewrite_shard(dir() / kShard1, [](std::vector<io::TensorData>& tensors) {
    tensors.push_back({"layers.0.attn.extra", DType::dtype_u8, {1}, {std::byte(0)}});
  });
  const auto report = check();
  EXPECT_TRUE(report.ok());
  EXPECT_THAT(report.unexpected, ElementsAre("layers.0.attn.extra"));
}

TEST_F(CheckpointCheck, MissingShardIsOneProblemNotOnePerTensor) {
  std::filesystem::remove(dir() / kShard2);
  const auto report = check();
  ASSERT_EQ(report.problems.size(), 1u) << ::testing::PrintToString(report.problems);
  EXPECT_THAT(report.problems[0], HasSubstr(std::string(kShard2) + ": missing shard"));
}

TEST_F(CheckpointCheck, EveryPlannedTensorIsCheckedForPresence) {
  // Delete each kind of tensor the tiny model has once: compressor, indexer, hash table, expert scale, MTP, head mix.
  const std::vector<std::string> gone = {"layers.2.attn.compressor.ape", "layers.3.attn.indexer.compressor.norm.weight",
                                         "layers.1.ffn.gate.tid2eid", "layers.0.ffn.experts.7.w2.scale",
                                         "hc_head_scale"};
  rewrite_shard(dir() / kShard1, [&](std::vector<io::TensorData>& tensors) {
    std::erase_if(tensors, [&](const io::TensorData& t) { return std::count(gone.begin(), gone.end(), t.name); });
  });
  rewrite_shard(dir() / kShard2, [](std::vector<io::TensorData>& tensors) {
    std::erase_if(tensors, [](const io::TensorData& t) { return t.name == "mtp.0.e_proj.scale"; });
  });
  auto problems = check().problems;
  std::vector<std::string> expected;
  for (const auto& g : gone) expected.push_back("tensor " + g + ": missing");
  expected.push_back("tensor mtp.0.e_proj.scale: missing");
  // The index still lists them: each shows up once as a folder problem and once as missing.
  const auto listed =
      std::erase_if(problems, [](const std::string& p) { return p.find("listed in") != std::string::npos; });
  EXPECT_EQ(listed, 6u);
  EXPECT_THAT(problems, ::testing::UnorderedElementsAreArray(expected));
}

}  // namespace
}  // namespace plumb::test
