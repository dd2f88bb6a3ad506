// Robustness of the header parser: seeded random mutations of a valid file (byte flips, truncation, header-length
// rewrites, header text splices) must either parse into a consistent layout or throw plumb::Error. Nothing else.
#include <gmock/gmock.h>

#include "base/rng.h"
#include "io/safetensors_reader.h"
#include "io/safetensors_writer.h"
#include "safetensors_helpers.h"
#include "test_support.h"

namespace plumb::test {
namespace {

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : seed_(seed) {}
  uint64_t below(uint64_t n) { return n == 0 ? 0 : uint64_t(keyed_uniform(seed_, counter_++) * double(n)) % n; }

  std::vector<std::byte> mutate(std::vector<std::byte> f) {
    const uint64_t header_end = std::min<uint64_t>(f.size(), 8 + header_len(f));
    switch (below(6)) {
      case 0:  // flip bits of a header byte
        if (header_end > 8) f[8 + below(header_end - 8)] ^= std::byte(uint8_t(1u << below(8)));
        break;
      case 1:  // random byte anywhere
        f[below(f.size())] = std::byte(uint8_t(below(256)));
        break;
      case 2:  // truncate
        f.resize(below(f.size() + 1));
        break;
      case 3: {  // a new header length, near the real one or wild
        const uint64_t len = below(2) ? header_len(f) + below(17) - 8 : (uint64_t(below(1u << 31)) << 33) | below(64);
        for (int i = 0; i < 8; ++i) f[size_t(i)] = std::byte(uint8_t(len >> (8 * i)));
        break;
      }
      case 4: {  // overwrite a header character with JSON punctuation or digits
        static const char kChars[] = "{}[]\":,0123456789-e.\\ ";
        if (header_end > 8) f[8 + below(header_end - 8)] = std::byte(uint8_t(kChars[below(sizeof(kChars) - 1)]));
        break;
      }
      default: {  // change a digit in the header (shapes and offsets)
        if (header_end <= 8) break;
        const uint64_t at = 8 + below(header_end - 8);
        for (uint64_t i = at; i < header_end; ++i)
          if (char(f[i]) >= '0' && char(f[i]) <= '9') {
            f[i] = std::byte(uint8_t('0' + below(10)));
            break;
          }
      }
    }
    return f;
  }

 private:
  static uint64_t header_len(const std::vector<std::byte>& f) {
    uint64_t v = 0;
    for (int i = 7; i >= 0 && f.size() >= 8; --i) v = v << 8 | uint64_t(f[size_t(i)]);
    return std::min<uint64_t>(v, f.size());
  }
  uint64_t seed_, counter_ = 0;
};

std::vector<std::byte> valid_file(const std::filesystem::path& dir) {
  const auto path = dir / "valid.safetensors";
  std::vector<io::TensorData> t;
  t.push_back({"layers.0.attn.wq_a.weight", DType::dtype_f8_e4m3, {4, 8}, std::vector<std::byte>(32, std::byte(1))});
  t.push_back({"layers.0.attn.wq_a.scale", DType::dtype_f8_e8m0, {1, 1}, std::vector<std::byte>(1, std::byte(127))});
  t.push_back({"embed.weight", DType::dtype_bf16, {3, 4}, std::vector<std::byte>(24, std::byte(2))});
  t.push_back({"layers.0.ffn.gate.tid2eid", DType::dtype_i64, {2, 2}, std::vector<std::byte>(32, std::byte(0))});
  io::write_safetensors(path, t, {{"format", "pt"}});
  std::ifstream in(path, std::ios::binary);
  std::vector<std::byte> bytes;
  for (char c; in.get(c);) bytes.push_back(std::byte(uint8_t(c)));
  return bytes;
}

// A layout that parsed must describe bytes inside the file, consistent with shapes, without overlaps.
void expect_consistent(const io::SafetensorsLayout& layout, uint64_t file_size) {
  uint64_t prev_end = layout.data_start;
  for (const auto& t : layout.tensors) {
    EXPECT_GE(t.offset, layout.data_start);
    EXPECT_LE(t.offset + t.nbytes, file_size);
    EXPECT_EQ(uint64_t(t.numel()) * dtype_size(t.dtype), t.nbytes);
    if (t.nbytes > 0) {
      EXPECT_GE(t.offset, prev_end);
      prev_end = t.offset + t.nbytes;
    }
  }
}

TEST(SafetensorsFuzz, MutatedHeadersParseOrThrowPlumbError) {
  ScratchDir dir;
  const std::vector<std::byte> original = valid_file(dir.path());
  Mutator mutator(20240611);
  int parsed = 0, rejected = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::byte> f = original;
    const uint64_t mutations = 1 + mutator.below(3);
    for (uint64_t m = 0; m < mutations; ++m) f = mutator.mutate(std::move(f));
    try {
      const auto layout = io::parse_safetensors(f, "fuzz.safetensors");
      expect_consistent(layout, f.size());
      ++parsed;
    } catch (const plumb::Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("fuzz.safetensors"));
      ++rejected;
    } catch (const std::exception& e) {
      FAIL() << "round " << round << ": non-plumb exception " << e.what();
    }
  }
  // Both outcomes must actually occur, or the mutations are not exercising the parser.
  EXPECT_GT(parsed, 100);
  EXPECT_GT(rejected, 1000);
}

TEST(SafetensorsFuzz, MutatedFilesOnDiskOpenOrThrowPlumbError) {
  ScratchDir dir;
  const std::vector<std::byte> original = valid_file(dir.path());
  Mutator mutator(7);
  const auto path = dir.path() / "mutant.safetensors";
  for (int round = 0; round < 300; ++round) {
    write_file(path, mutator.mutate(original));
    try {
      io::SafetensorsFile file(path);
      for (const auto& t : file.tensors()) EXPECT_EQ(file.bytes(t).size(), t.nbytes);
    } catch (const plumb::Error&) {
    } catch (const std::exception& e) {
      FAIL() << "round " << round << ": non-plumb exception " << e.what();
    }
  }
}

}  // namespace
}  // namespace plumb::test
