#include "bench/exactness.h"

#include <fmt/format.h>

namespace plumb::bench {

Match compare_replies(const StreamedReply& reply, const StreamedReply& reference) {
  if (!reply.ok || !reference.ok || !reply.token_sha256 || !reference.token_sha256) return Match::failed;
  return *reply.token_sha256 == *reference.token_sha256 ? Match::equal : Match::unequal;
}

const char* match_name(Match m) {
  switch (m) {
    case Match::equal: return "equal";
    case Match::unequal: return "unequal";
    case Match::failed: return "failed";
  }
  return "failed";
}

void Tally::add(Match m) {
  switch (m) {
    case Match::equal: ++equal; break;
    case Match::unequal: ++unequal; break;
    case Match::failed: ++failed; break;
  }
}

std::string Tally::text() const {
  if (!checked()) return "-";
  if (all_equal()) return fmt::format("equal {}/{}", equal, total());
  std::string out;
  if (unequal > 0) out = fmt::format("unequal {}/{}", unequal, total());
  if (failed > 0) out += fmt::format("{}failed {}/{}", out.empty() ? "" : ", ", failed, total());
  return out;
}

nlohmann::json Tally::to_json() const {
  return {{"equal", equal}, {"unequal", unequal}, {"failed", failed}, {"text", text()}};
}

}  // namespace plumb::bench
