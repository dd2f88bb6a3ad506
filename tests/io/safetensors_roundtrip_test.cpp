// Writer -> reader round trips over every dtype, checked against hand-built bytes and hand-computed layouts.
#include <gmock/gmock.h>

#include "io/safetensors_reader.h"
#include "io/safetensors_writer.h"
#include "safetensors_helpers.h"
#include "test_support.h"

namespace plumb::test {
namespace {

std::vector<std::byte> pattern(size_t n, uint8_t start) {
  std::vector<std::byte> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::byte(uint8_t(start + i * 7));
  return v;
}

TEST(SafetensorsRoundTrip, EveryDtypeComesBackByteForByte) {
  ScratchDir dir;
  const std::vector<std::pair<DType, size_t>> dtypes = {
      {DType::dtype_f64, 8}, {DType::dtype_f32, 4},     {DType::dtype_f16, 2},     {DType::dtype_bf16, 2},
      {DType::dtype_i8, 1},  {DType::dtype_f8_e4m3, 1}, {DType::dtype_f8_e8m0, 1}, {DType::dtype_u8, 1},
      {DType::dtype_i32, 4}, {DType::dtype_i64, 8},     {DType::dtype_bool, 1}};
  std::vector<io::TensorData> tensors;
  for (size_t i = 0; i < dtypes.size(); ++i) {
    const auto [dtype, size] = dtypes[i];
    tensors.push_back({fmt::format("t{}", 10 + i), dtype, {3, 5}, pattern(15 * size, uint8_t(i))});
  }
  tensors.push_back({"scalar", DType::dtype_f32, {}, pattern(4, 99)});
  tensors.push_back({"empty", DType::dtype_bf16, {0, 4}, {}});
  const auto path = dir.path() / "all.safetensors";
  io::write_safetensors(path, tensors, {{"format", "pt"}});

  io::SafetensorsFile file(path);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  ASSERT_EQ(file.tensors().size(), tensors.size());
  for (const auto& t : tensors) {
    const io::TensorInfo& info = file.at(t.name);
    EXPECT_EQ(info.dtype, t.dtype) << t.name;
    EXPECT_EQ(info.shape, t.shape) << t.name;
    EXPECT_EQ(info.nbytes, t.bytes.size()) << t.name;
    EXPECT_EQ(info.offset % dtype_size(t.dtype), 0u) << t.name << ": aligned to its element size";
    const auto bytes = file.bytes(info);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), t.bytes.begin(), t.bytes.end())) << t.name;
  }
  EXPECT_EQ(file.at("scalar").numel(), 1);
  EXPECT_EQ(file.at("empty").numel(), 0);
  EXPECT_EQ(file.find("nope"), nullptr);
}

TEST(SafetensorsRoundTrip, LayoutMatchesTheFormatByHand) {
  // Two U8 tensors "b" (2 bytes) and "a" (3 bytes): sorted by name, a's data first at offset 0, b's at 3.
  ScratchDir dir;
  const auto path = dir.path() / "x.safetensors";
  io::write_safetensors(path, {{"b", DType::dtype_u8, {2}, pattern(2, 1)}, {"a", DType::dtype_u8, {3}, pattern(3, 5)}});
  std::ifstream in(path, std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string expected_json =
      R"({"a":{"data_offsets":[0,3],"dtype":"U8","shape":[3]},"b":{"data_offsets":[3,5],"dtype":"U8","shape":[2]}})";
  const size_t padded = (expected_json.size() + 7) / 8 * 8;
  ASSERT_EQ(raw.size(), 8 + padded + 5);
  EXPECT_EQ(uint8_t(raw[0]), padded);
  EXPECT_EQ(raw.substr(8, expected_json.size()), expected_json);
  EXPECT_EQ(raw.substr(8 + expected_json.size(), padded - expected_json.size()),
            std::string(padded - expected_json.size(), ' '));
  EXPECT_EQ(uint8_t(raw[8 + padded]), 5);      // a[0]
  EXPECT_EQ(uint8_t(raw[8 + padded + 3]), 1);  // b[0]
}

TEST(SafetensorsRoundTrip, WiderElementsComeFirst) {
  ScratchDir dir;
  const auto path = dir.path() / "x.safetensors";
  io::write_safetensors(path, {{"a", DType::dtype_u8, {3}, pattern(3, 1)},
                               {"b", DType::dtype_f32, {1}, pattern(4, 2)},
                               {"c", DType::dtype_i64, {1}, pattern(8, 3)}});
  io::SafetensorsFile file(path);
  const uint64_t start = file.tensors()[0].offset;
  EXPECT_EQ(file.tensors()[0].name, "c");
  EXPECT_EQ(file.at("b").offset, start + 8);
  EXPECT_EQ(file.at("a").offset, start + 12);
}

TEST(SafetensorsRoundTrip, OutputDoesNotDependOnInputOrder) {
  ScratchDir dir;
  std::vector<io::TensorData> t = {{"x", DType::dtype_f32, {2}, pattern(8, 1)},
                                   {"y", DType::dtype_i64, {1}, pattern(8, 2)}};
  io::write_safetensors(dir.path() / "1.safetensors", t);
  std::swap(t[0], t[1]);
  io::write_safetensors(dir.path() / "2.safetensors", t);
  std::ifstream a(dir.path() / "1.safetensors", std::ios::binary), b(dir.path() / "2.safetensors", std::ios::binary);
  const std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
  EXPECT_EQ(sa, sb);
}

TEST(SafetensorsRoundTrip, WriterRefusesInconsistentTensors) {
  ScratchDir dir;
  const auto path = dir.path() / "w.safetensors";
  EXPECT_THAT(error_of([&] {
                io::write_safetensors(path, {{"x", DType::dtype_f32, {3}, pattern(8, 0)}});
              }),
              ::testing::HasSubstr("tensor x: shape [3] of F32 needs 12 bytes, 8 given"));
  EXPECT_THAT(error_of([&] {
                io::write_safetensors(
                    path, {{"x", DType::dtype_u8, {1}, pattern(1, 0)}, {"x", DType::dtype_u8, {1}, pattern(1, 0)}});
              }),
              ::testing::HasSubstr("tensor x given twice"));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(SafetensorsRoundTrip, ReaderAcceptsAFileFromAnotherWriter) {
  // As the reference library writes it: no padding, tensors in any order in the header, metadata first.
  ScratchDir dir;
  const std::string header = R"({"__metadata__":{"k":"v"},"z":{"dtype":"I32","shape":[1],"data_offsets":[4,8]},)"
                             R"("y":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})";
  write_file(dir.path() / "f.safetensors", raw_safetensors(header, {1, 2, 3, 4, 5, 0, 0, 0}));
  io::SafetensorsFile file(dir.path() / "f.safetensors");
  EXPECT_EQ(file.metadata().at("k"), "v");
  ASSERT_EQ(file.tensors().size(), 2u);
  EXPECT_EQ(file.tensors()[0].name, "y");  // listed in data order
  EXPECT_EQ(file.at("z").offset, 8 + header.size() + 4);
  EXPECT_EQ(uint8_t(file.bytes(file.at("z"))[0]), 5);
}

}  // namespace
}  // namespace plumb::test
