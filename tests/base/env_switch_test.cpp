#include "base/env_switch.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace plumb {
namespace {

constexpr const char* kName = "PLUMB_TEST_ENV_SWITCH";

TEST(EnvSwitch, OnUnlessTheVariableIsExactlyZero) {
  unsetenv(kName);
  EXPECT_TRUE(env_switch_on(kName));  // unset: on
  setenv(kName, "0", 1);
  EXPECT_FALSE(env_switch_on(kName));
  for (const char* v : {"1", "", "00", "0 ", "off", "false"}) {
    setenv(kName, v, 1);
    EXPECT_TRUE(env_switch_on(kName)) << "value '" << v << "'";
  }
  unsetenv(kName);
}

}  // namespace
}  // namespace plumb
