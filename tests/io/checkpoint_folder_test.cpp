// Checkpoint folders: single file, sharded through the index, config-only, the "model." prefix, and the problems
// the folder collects instead of throwing.
#include <gmock/gmock.h>

#include "io/checkpoint_folder.h"
#include "io/safetensors_writer.h"
#include "safetensors_helpers.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

io::TensorData u8(const std::string& name, uint8_t value, int64_t n = 4) {
  return {name, DType::dtype_u8, {n}, std::vector<std::byte>(size_t(n), std::byte(value))};
}

class CheckpointFolderTest : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir() / "config.json", std::string(R"({"hidden_size": 8})")); }
  const std::filesystem::path& dir() const { return scratch_.path(); }
  void index(const std::string& weight_map) {
    write_file(dir() / "model.safetensors.index.json",
               R"({"metadata":{"total_size":0},"weight_map":)" + weight_map + "}");
  }
  ScratchDir scratch_;
};

TEST_F(CheckpointFolderTest, SingleFileWithEitherSpellingOfNames) {
  io::write_safetensors(dir() / "model.safetensors", {u8("model.layers.0.w", 3), u8("embed.weight", 4)});
  const auto folder = io::CheckpointFolder::open(dir());
  EXPECT_TRUE(folder.problems().empty());
  EXPECT_TRUE(folder.has_weight_files());
  EXPECT_EQ(folder.config().at("hidden_size"), 8);
  EXPECT_THAT(folder.tensor_names(), ElementsAre("embed.weight", "layers.0.w"));
  for (const char* name : {"layers.0.w", "model.layers.0.w"}) {
    const auto ref = folder.find(name);
    ASSERT_TRUE(ref) << name;
    EXPECT_EQ(ref->info->name, "model.layers.0.w");
    EXPECT_EQ(uint8_t(ref->bytes()[0]), 3);
  }
  EXPECT_TRUE(folder.find("model.embed.weight"));
  EXPECT_FALSE(folder.find("head.weight"));
  EXPECT_THAT(error_of([&] { folder.at("model.head.weight"); }), HasSubstr("tensor head.weight missing"));
}

TEST_F(CheckpointFolderTest, ShardsThroughTheIndex) {
  io::write_safetensors(dir() / "a.safetensors", {u8("x", 1), u8("y", 2)});
  io::write_safetensors(dir() / "b.safetensors", {u8("z", 3)});
  index(R"({"x":"a.safetensors","y":"a.safetensors","z":"b.safetensors"})");
  const auto folder = io::CheckpointFolder::open(dir());
  EXPECT_TRUE(folder.problems().empty());
  EXPECT_EQ(folder.files().size(), 2u);
  EXPECT_EQ(folder.at("z").file->path().filename(), "b.safetensors");
  EXPECT_EQ(uint8_t(folder.at("y").bytes()[0]), 2);
  folder.require_readable();
}

TEST_F(CheckpointFolderTest, ConfigPathNamesTheFolder) {
  io::write_safetensors(dir() / "model.safetensors", {u8("x", 1)});
  const auto folder = io::CheckpointFolder::open(dir() / "config.json");
  EXPECT_EQ(folder.dir(), dir());
  EXPECT_TRUE(folder.find("x"));
}

TEST_F(CheckpointFolderTest, ConfigOnly) {
  const auto folder = io::CheckpointFolder::open(dir());
  EXPECT_FALSE(folder.has_weight_files());
  EXPECT_TRUE(folder.problems().empty());
  EXPECT_TRUE(folder.tensor_names().empty());
}

TEST_F(CheckpointFolderTest, MissingOrBadConfigThrows) {
  std::filesystem::remove(dir() / "config.json");
  EXPECT_THAT(error_of([&] { io::CheckpointFolder::open(dir()); }), HasSubstr("config.json missing"));
  write_file(dir() / "config.json", std::string("{oops"));
  EXPECT_THAT(error_of([&] { io::CheckpointFolder::open(dir()); }), HasSubstr("config.json: not valid JSON"));
  EXPECT_THAT(error_of([&] { io::CheckpointFolder::open(dir() / "nowhere"); }), HasSubstr("no such folder or file"));
}

TEST_F(CheckpointFolderTest, IndexNamingATensorItsShardLacks) {
  io::write_safetensors(dir() / "a.safetensors", {u8("x", 1)});
  index(R"({"x":"a.safetensors","ghost":"a.safetensors"})");
  const auto folder = io::CheckpointFolder::open(dir());
  ASSERT_EQ(folder.problems().size(), 1u);
  EXPECT_THAT(folder.problems()[0], HasSubstr("a.safetensors: tensor ghost: listed in model.safetensors.index.json"));
  EXPECT_FALSE(folder.in_unreadable_shard("ghost"));
}

TEST_F(CheckpointFolderTest, SameTensorInTwoShards) {
  io::write_safetensors(dir() / "a.safetensors", {u8("x", 1)});
  io::write_safetensors(dir() / "b.safetensors", {u8("model.x", 2)});
  index(R"({"x":"a.safetensors","model.x":"b.safetensors"})");
  const auto folder = io::CheckpointFolder::open(dir());
  ASSERT_EQ(folder.problems().size(), 1u);
  EXPECT_THAT(folder.problems()[0], HasSubstr("tensor x: stored twice"));
}

TEST_F(CheckpointFolderTest, ShardNameOutsideTheFolderIsRefused) {
  index(R"({"x":"../elsewhere.safetensors"})");
  const auto folder = io::CheckpointFolder::open(dir());
  ASSERT_EQ(folder.problems().size(), 1u);
  EXPECT_THAT(folder.problems()[0], HasSubstr("tensor x: shard \"../elsewhere.safetensors\" is not a file name"));
}

TEST_F(CheckpointFolderTest, MalformedShardIsCollectedAndItsTensorsMarked) {
  io::write_safetensors(dir() / "a.safetensors", {u8("x", 1)});
  write_file(dir() / "b.safetensors",
             raw_safetensors(R"({"y":{"dtype":"U8","shape":[9],"data_offsets":[0,9]}})", std::vector<uint8_t>(4, 0)));
  index(R"({"x":"a.safetensors","y":"b.safetensors"})");
  const auto folder = io::CheckpointFolder::open(dir());
  ASSERT_EQ(folder.problems().size(), 1u);
  EXPECT_THAT(folder.problems()[0], HasSubstr("b.safetensors: tensor y: data_offsets [0, 9] run past the end"));
  EXPECT_TRUE(folder.in_unreadable_shard("model.y"));
  EXPECT_TRUE(folder.find("x"));
  EXPECT_THAT(error_of([&] { folder.require_readable(); }), HasSubstr("1 problem(s)"));
}

TEST_F(CheckpointFolderTest, BadIndexJsonIsAProblem) {
  write_file(dir() / "model.safetensors.index.json", std::string("{\"weight_map\": 3}"));
  const auto folder = io::CheckpointFolder::open(dir());
  EXPECT_TRUE(folder.has_weight_files());
  ASSERT_EQ(folder.problems().size(), 1u);
  EXPECT_THAT(folder.problems()[0], HasSubstr("no \"weight_map\" object"));
}

TEST_F(CheckpointFolderTest, WithoutIndexEverySafetensorsFileIsRead) {
  io::write_safetensors(dir() / "part-1.safetensors", {u8("x", 1)});
  io::write_safetensors(dir() / "part-2.safetensors", {u8("y", 2)});
  const auto folder = io::CheckpointFolder::open(dir());
  EXPECT_TRUE(folder.problems().empty());
  EXPECT_THAT(folder.tensor_names(), ElementsAre("x", "y"));
}

}  // namespace
}  // namespace plumb::test
