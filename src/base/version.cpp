#include "base/version.h"

#ifndef PLUMB_GIT_COMMIT
#define PLUMB_GIT_COMMIT "unknown"
#endif

namespace plumb {

std::string_view git_commit() { return PLUMB_GIT_COMMIT; }
std::string_view version_string() { return "0.1.0 (commit " PLUMB_GIT_COMMIT ")"; }

}  // namespace plumb
