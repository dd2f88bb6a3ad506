// PLUMB_CUDA_OP_TIMES: each outermost op scope is one call of its row, nested scopes count inside their parent,
// each of those waits for the device before and after, and nothing is printed when the variable is unset.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "kernels/cuda/op_clock.h"

namespace plumb::cuda {
namespace {

std::string table_of(bool on, int* waits) {
  if (on) {
    setenv("PLUMB_CUDA_OP_TIMES", "1", 1);
  } else {
    unsetenv("PLUMB_CUDA_OP_TIMES");
  }
  testing::internal::CaptureStderr();
  {
    OpClock clock([waits] { ++*waits; });
    for (int i = 0; i < 3; ++i) {
      const OpScope outer(clock, "shared_expert");
      const OpScope inner(clock, "linear fp8 2048x4096");  // an op built from ops counts once, in the outer one
    }
    const OpScope other(clock, std::string("rope"));
  }
  unsetenv("PLUMB_CUDA_OP_TIMES");
  return testing::internal::GetCapturedStderr();
}

TEST(OpClock, CountsOutermostScopesOnlyAndPrintsWhenAsked) {
  int waits = 0;
  const std::string table = table_of(true, &waits);
  EXPECT_EQ(waits, 8);  // before and after each of the four outermost scopes
  EXPECT_NE(table.find("cuda op times"), std::string::npos) << table;
  const size_t shared = table.find("shared_expert");
  ASSERT_NE(shared, std::string::npos) << table;
  EXPECT_NE(table.find(" 3 ", shared), std::string::npos) << table;  // three calls in its row
  EXPECT_NE(table.find("rope"), std::string::npos) << table;
  EXPECT_EQ(table.find("linear fp8"), std::string::npos) << table;
}

TEST(OpClock, SilentAndWaitsForNothingWhenTheVariableIsUnset) {
  int waits = 0;
  EXPECT_EQ(table_of(false, &waits), "");
  EXPECT_EQ(waits, 0);
}

}  // namespace
}  // namespace plumb::cuda
