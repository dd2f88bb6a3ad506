// Small statistics for benchmark tables: the median (the middle value, or the mean of the two middle values).
#pragma once

#include <optional>
#include <vector>

namespace plumb::bench {

std::optional<double> median(std::vector<double> values);  // nullopt for no values

}  // namespace plumb::bench
