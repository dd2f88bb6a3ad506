// The built-in DeepSeek-V4-Flash config against the release's config.json (fixture), and its layer kinds counted
// by hand from that file's compress_ratios and num_hash_layers.
#include <gtest/gtest.h>

#include <fstream>

#include "bench/synth_layers.h"
#include "model/dsv4/release_config.h"
#include "test_support.h"

namespace plumb::test {
namespace {

TEST(ReleaseConfig, EqualsTheReleaseConfigJson) {
  PLUMB_REQUIRE_FIXTURES(fixtures);
  const auto path = fixtures / "dsv4-flash" / "config.json";
  if (!std::filesystem::is_regular_file(path)) GTEST_SKIP() << path << " not found";
  std::ifstream in(path);
  const dsv4::Config from_file = dsv4::Config::from_json(nlohmann::json::parse(in), path.string());
  EXPECT_EQ(dsv4::release_flash_config().to_json(), from_file.to_json());
}

// compress_ratios [0, 0, 4, 128, 4, 128, ..., 4, 0] over 43 layers + 1 MTP block, num_hash_layers 3: layers 0-1
// window + hash, layer 2 CSA + hash, layers 3, 5, .., 41 HCA (20), layers 4, 6, .., 42 CSA (20), MTP window + top-k.
TEST(ReleaseConfig, LayerKindsCountedByHand) {
  const std::vector<bench::LayerKind> kinds = bench::layer_kinds(dsv4::release_flash_config());
  ASSERT_EQ(kinds.size(), 5u);
  const std::vector<std::tuple<std::string, int64_t, int64_t>> expected = {
      {"window hash", 2, 0}, {"CSA/4 hash", 1, 0}, {"HCA/128 top-k", 20, 0}, {"CSA/4 top-k", 20, 0},
      {"window top-k", 0, 1}};
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(kinds[i].label(), std::get<0>(expected[i]));
    EXPECT_EQ(kinds[i].main_layers, std::get<1>(expected[i])) << kinds[i].label();
    EXPECT_EQ(kinds[i].mtp_blocks, std::get<2>(expected[i])) << kinds[i].label();
    EXPECT_FALSE(kinds[i].spec.mtp);
  }
}

}  // namespace
}  // namespace plumb::test
