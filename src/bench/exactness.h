// Exactness columns: a reply's token_sha256 against the same request's reference (run alone, with drafts off, or
// the first of a repeated prompt). Either side failing or sending no hash makes the comparison "failed": only two
// present, equal hashes are a pass.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "bench/openai_client.h"

namespace plumb::bench {

enum class Match { equal, unequal, failed };

Match compare_replies(const StreamedReply& reply, const StreamedReply& reference);
const char* match_name(Match m);

// The comparisons of one table cell.
struct Tally {
  int equal = 0, unequal = 0, failed = 0;

  void add(Match m);
  int total() const { return equal + unequal + failed; }
  bool checked() const { return total() > 0; }
  bool all_equal() const { return checked() && equal == total(); }
  // "equal 12/12", "unequal 1/12", "unequal 1/12, failed 2/12", "-" when nothing was compared.
  std::string text() const;
  nlohmann::json to_json() const;
};

}  // namespace plumb::bench
