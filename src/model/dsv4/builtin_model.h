// The built-in tiny model: a gen-tiny checkpoint plumb writes itself on first use, so nothing is downloaded. It lives
// in the cache folder ($PLUMB_CACHE_DIR, else $XDG_CACHE_HOME/plumb, else ~/.cache/plumb) under a name keyed by the
// generator version and seed. Writing goes to a private temporary folder renamed into place, so processes racing
// to create it all end up with one complete copy.
#pragma once

#include <filesystem>

namespace plumb::dsv4 {

std::filesystem::path plumb_cache_dir();
// The folder of the built-in tiny model, written first if absent.
std::filesystem::path builtin_model_dir();

}  // namespace plumb::dsv4
