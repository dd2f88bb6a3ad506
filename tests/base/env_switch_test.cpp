#include "base/env_switch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

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

TEST(EnvInt, AWholeNumberOrTheFallback) {
  unsetenv(kName);
  EXPECT_EQ(env_int(kName, 7), 7);  // unset
  for (const auto& [v, want] : {std::pair{"8", 8}, {"-3", -3}, {"0", 0}, {"4096", 4096}}) {
    setenv(kName, v, 1);
    EXPECT_EQ(env_int(kName, 7), want) << "value '" << v << "'";
  }
  for (const char* v : {"", " 8", "8 ", "8x", "x", "+8", "99999999999"}) {  // empty, malformed or out of range
    setenv(kName, v, 1);
    EXPECT_EQ(env_int(kName, 7), 7) << "value '" << v << "'";
  }
  unsetenv(kName);
}

}  // namespace
}  // namespace plumb
