// One test per malformed-file case: each must be a plumb::Error whose message names the file and the tensor (or the
// header problem), never a crash.
#include <gmock/gmock.h>

#include "io/checkpoint_folder.h"
#include "io/safetensors_reader.h"
#include "safetensors_helpers.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using ::testing::HasSubstr;

// Writes `bytes` as bad.safetensors in a scratch folder and returns the error opening it gives.
class SafetensorsErrors : public ::testing::Test {
 protected:
  std::string open_error(const std::vector<std::byte>& bytes) {
    write_file(path(), bytes);
    return error_of([&] { io::SafetensorsFile file(path()); });
  }
  std::filesystem::path path() const { return dir_.path() / "bad.safetensors"; }
  ScratchDir dir_;
};

const std::vector<uint8_t> k8Bytes(8, 0);

TEST_F(SafetensorsErrors, TruncatedFileShorterThanTheLengthField) {
  const std::string msg = open_error({std::byte(1), std::byte(0), std::byte(0)});
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("truncated file (3 bytes"));
}

TEST_F(SafetensorsErrors, EmptyFile) {
  const std::string msg = open_error({});
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("truncated file (0 bytes"));
}

TEST_F(SafetensorsErrors, HeaderLengthPastTheEnd) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})";
  const std::string msg = open_error(raw_safetensors(header, k8Bytes, 1000));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("header length 1000 runs past the end of the file"));
}

TEST_F(SafetensorsErrors, InvalidHeaderJson) {
  const std::string msg = open_error(raw_safetensors(R"({"a":{"dtype":"U8",)", {}));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("header is not valid JSON"));
}

TEST_F(SafetensorsErrors, NonUtf8Header) {
  const std::string header = "{\"a\xff\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]}}";
  const std::string msg = open_error(raw_safetensors(header, k8Bytes));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("header is not valid UTF-8 (byte 3 of the header)"));
}

TEST_F(SafetensorsErrors, OverlongUtf8IsRejected) {
  const std::string header = "{\"a\xc0\xaf\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]}}";
  EXPECT_THAT(open_error(raw_safetensors(header, k8Bytes)), HasSubstr("not valid UTF-8"));
}

TEST_F(SafetensorsErrors, HeaderNotAnObject) {
  const std::string msg = open_error(raw_safetensors("[1, 2]", {}));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("header is not a JSON object"));
}

TEST_F(SafetensorsErrors, UnknownDtype) {
  const std::string header = R"({"w.weight":{"dtype":"F4","shape":[8],"data_offsets":[0,8]}})";
  const std::string msg = open_error(raw_safetensors(header, k8Bytes));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("tensor w.weight: unknown dtype \"F4\""));
}

TEST_F(SafetensorsErrors, ShapeDisagreesWithByteRange) {
  const std::string header = R"({"w.weight":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})";
  const std::string msg = open_error(raw_safetensors(header, k8Bytes));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("tensor w.weight: shape [3] of F32 needs 12 bytes but data_offsets [0, 8] span 8"));
}

TEST_F(SafetensorsErrors, NegativeDimension) {
  const std::string header = R"({"w.weight":{"dtype":"U8","shape":[-8],"data_offsets":[0,8]}})";
  EXPECT_THAT(open_error(raw_safetensors(header, k8Bytes)),
              HasSubstr("tensor w.weight: shape [-8] has an entry that is not a non-negative integer"));
}

TEST_F(SafetensorsErrors, ShapeOverflow) {
  const std::string header = R"({"w.weight":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}})";
  EXPECT_THAT(open_error(raw_safetensors(header, k8Bytes)), HasSubstr("tensor w.weight: shape"));
}

TEST_F(SafetensorsErrors, OverlappingOffsets) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[6],"data_offsets":[0,6]},)"
                             R"("b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})";
  const std::string msg = open_error(raw_safetensors(header, k8Bytes));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("tensor b: bytes"));
  EXPECT_THAT(msg, HasSubstr("overlap tensor a"));
}

TEST_F(SafetensorsErrors, OutOfRangeOffsets) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[6,10]}})";
  const std::string msg = open_error(raw_safetensors(header, k8Bytes));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("tensor a: data_offsets [6, 10] run past the end of the data section (8 bytes"));
}

TEST_F(SafetensorsErrors, OffsetsEndBeforeTheyBegin) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[6,2]}})";
  EXPECT_THAT(open_error(raw_safetensors(header, k8Bytes)), HasSubstr("tensor a: data_offsets [6, 2] end before"));
}

TEST_F(SafetensorsErrors, DuplicateNames) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                             R"("a":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})";
  const std::string msg = open_error(raw_safetensors(header, k8Bytes));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("tensor a: name appears more than once"));
}

TEST_F(SafetensorsErrors, MissingFieldInEntry) {
  const std::string header = R"({"a":{"dtype":"U8","data_offsets":[0,8]}})";
  EXPECT_THAT(open_error(raw_safetensors(header, k8Bytes)), HasSubstr("tensor a: missing or non-array \"shape\""));
}

TEST_F(SafetensorsErrors, TruncatedDataNamesTheFirstTensorPastTheEnd) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})";
  const std::string msg = open_error(raw_safetensors(header, std::vector<uint8_t>(6, 0)));
  EXPECT_THAT(msg, HasSubstr(path().string()));
  EXPECT_THAT(msg, HasSubstr("tensor b: data_offsets [4, 8] run past the end of the data section (6 bytes; file "
                             "truncated?)"));
}

TEST_F(SafetensorsErrors, MissingFile) {
  const std::string msg = error_of([&] { io::SafetensorsFile file(dir_.path() / "nope.safetensors"); });
  EXPECT_THAT(msg, HasSubstr("nope.safetensors: cannot open"));
}

TEST_F(SafetensorsErrors, MissingShardIsAFolderProblemNamingShardAndTensor) {
  write_file(dir_.path() / "config.json", std::string("{}"));
  write_file(dir_.path() / "model.safetensors.index.json",
             std::string(R"({"weight_map":{"layers.0.w":"model-00002-of-00002.safetensors"}})"));
  const auto folder = io::CheckpointFolder::open(dir_.path());
  ASSERT_EQ(folder.problems().size(), 1u);
  EXPECT_THAT(folder.problems()[0], HasSubstr((dir_.path() / "model-00002-of-00002.safetensors").string()));
  EXPECT_THAT(folder.problems()[0], HasSubstr("missing shard (the index lists 1 tensors in it, e.g. layers.0.w)"));
  EXPECT_TRUE(folder.in_unreadable_shard("layers.0.w"));
  EXPECT_THAT(error_of([&] { folder.require_readable(); }), HasSubstr("missing shard"));
}

}  // namespace
}  // namespace plumb::test
