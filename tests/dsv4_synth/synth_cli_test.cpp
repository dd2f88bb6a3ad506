// `plumb synth` end to end on the CPU backend with the tiny model's config: the layers, the round and the JSON; and
// the kernel classes refused without CUDA.
#include <gmock/gmock.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "model/dsv4/tiny_checkpoint.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using ::testing::HasSubstr;

TEST(SynthCli, LayersOnTheCpuBackendWithATinyConfig) {
  ScratchDir dir;
  const auto config = dir.path() / "config.json";
  std::ofstream(config) << dsv4::tiny_config(dsv4::TinySpec{}).to_json().dump();
  const auto json_path = dir.path() / "synth.json";
  const CommandResult r = run_command(std::string(PLUMB_BINARY) + " synth --backend cpu --config " + config.string() +
                                      " --rows 1 --repeats 1 --context 16 --distinct-experts 2 --op-times --json " +
                                      json_path.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("only the layers are timed"));
  EXPECT_THAT(r.output, HasSubstr("layer cells by dispatch class"));
  EXPECT_THAT(r.output, HasSubstr("op (synchronized before and after)"));
  EXPECT_THAT(r.output, HasSubstr("6-layer round"));
  EXPECT_THAT(r.output, HasSubstr("6-layer round, one flush"));
  EXPECT_THAT(r.output, HasSubstr("layer HCA/16 top-k"));

  std::ifstream in(json_path);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["tool"], "synth");
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_TRUE(j.contains("commit"));
  EXPECT_GT(j["copy_bandwidth_bytes_per_s"].get<double>(), 0.0);
  // 5 kinds x (1 slot x 1 row, 4 slots x 1 row) x 2 routings, then 4 rounds summed and 4 in one flush.
  ASSERT_EQ(j["cells"].size(), 28u);
  int rounds = 0, one_flush = 0;
  for (const auto& c : j["cells"]) {
    EXPECT_GT(c["seconds"].get<double>(), 0.0) << c.dump();
    EXPECT_GT(c["bytes"].get<double>(), 0.0) << c.dump();
    EXPECT_DOUBLE_EQ(c["floor_seconds"].get<double>(),
                     c["bytes"].get<double>() / j["copy_bandwidth_bytes_per_s"].get<double>());
    rounds += c["type"] == "round";
    if (c["type"] == "round") one_flush += c["one_flush"].get<bool>();
    if (c["type"] == "layer") {
      for (const char* cls : {"dense", "experts", "attention", "glue"})
        EXPECT_GT(c["class_seconds"][cls].get<double>(), 0.0) << cls << " " << c.dump();
      EXPECT_GT(c["host_seconds"].get<double>(), 0.0) << c.dump();
    }
  }
  EXPECT_EQ(rounds, 8);
  EXPECT_EQ(one_flush, 4);
  EXPECT_EQ(j["layers"]["distinct_experts"], 2);
}

TEST(SynthCli, KernelClassesNeedCuda) {
  const CommandResult r = run_command(std::string(PLUMB_BINARY) + " synth --backend cpu --only kernels");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("CUDA kernels"));
}

}  // namespace
}  // namespace plumb::test
