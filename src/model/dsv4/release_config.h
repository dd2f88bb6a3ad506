// The built-in DeepSeek-V4-Flash config: the release's hyperparameters (its config.json), for work that needs the
// release's shapes without a checkpoint (`plumb synth` builds synthetic layers of these widths).
#pragma once

#include "model/dsv4/config.h"

namespace plumb::dsv4 {

// 43 main layers (2 window-only, then CSA and HCA (ratio 128) alternating, ending on CSA; the first 3 hash-routed)
// and 1 window-only MTP block, at hidden 4096 with 256 routed experts of which 6 per token.
Config release_flash_config();

}  // namespace plumb::dsv4
