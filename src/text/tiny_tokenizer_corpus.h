// The built-in training text of the tiny tokenizer (see tiny_tokenizer.h).
#pragma once

#include <string_view>

namespace plumb::text {

std::string_view tiny_tokenizer_corpus();

}  // namespace plumb::text
