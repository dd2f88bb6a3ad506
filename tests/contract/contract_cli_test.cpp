// `plumb contract` as CI runs it: one kernel with its controls, the SUMMARY line, the JSON file and the exit status;
// PLUMB_PLANT selects a control for any subcommand and an unknown name is refused.
#include <gmock/gmock.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace plumb::test {
namespace {

using ::testing::HasSubstr;


const std::string kPlumb = PLUMB_BINARY;

TEST(ContractCli, OneKernelPassesWithEveryControlRedAndWritesJson) {
  ScratchDir scratch;
  const auto json_path = scratch.path() / "contract.json";
  const CommandResult r = run_command(kPlumb + " contract --only rms_norm --json " + json_path.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("rms_norm                 gates 1234 PASS"));
  EXPECT_THAT(r.output, HasSubstr("SUMMARY 1 kernels: 1 pass gates 1-4, 0 fail; 2 controls: 2 red as planted, 0 missed"));
  std::ifstream f(json_path);
  const auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_TRUE(j["ok"].get<bool>());
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["controls"].size(), 2u);
  for (const auto& c : j["kernels"][0]["controls"]) EXPECT_TRUE(c["red"].get<bool>()) << c.dump();
}

TEST(ContractCli, AnUnknownKernelIsRefused) {
  const CommandResult r = run_command(kPlumb + " contract --only no_such_kernel");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("--only no_such_kernel: no such kernel on the cpu backend"));
}

TEST(ContractCli, PlumbPlantNamesAControlOrIsRefused) {
  const CommandResult bad = run_command("PLUMB_PLANT=rms_norm/no_such_control " + kPlumb + " contract --list");
  EXPECT_NE(bad.status, 0);
  EXPECT_THAT(bad.output, HasSubstr("PLUMB_PLANT=rms_norm/no_such_control: no such planted control"));
  // The contract runs its gates unplanted whatever the environment plants, then plants each control itself.
  const CommandResult planted = run_command("PLUMB_PLANT=embed/token_off_by_one " + kPlumb + " contract --only embed");
  EXPECT_EQ(planted.status, 0) << planted.output;
  EXPECT_THAT(planted.output, HasSubstr("a planted control is on"));
  EXPECT_THAT(planted.output, HasSubstr("1 controls: 1 red as planted, 0 missed"));
}

}  // namespace
}  // namespace plumb::test
