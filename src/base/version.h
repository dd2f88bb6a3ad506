// Build identity: recorded in receipts and benchmark JSON, and part of the key of spilled prompt-cache files.
#pragma once

#include <string_view>

namespace plumb {

std::string_view version_string();  // "0.1.0 (commit abc1234)"
std::string_view git_commit();      // short hash at configure time, or "unknown"

}  // namespace plumb
