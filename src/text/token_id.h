// The token id type shared by the tokenizer, the engine and the server (ids are small non-negative ints).
#pragma once

#include <cstdint>

namespace plumb::text {

using TokenId = int32_t;

}  // namespace plumb::text
