#include "bench/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <fstream>

#include "base/error.h"
#include "base/version.h"
#include "bench/machine.h"

namespace plumb::bench {

using nlohmann::json;

void Table::print(std::FILE* out) const {
  std::vector<size_t> width(header.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  widen(header);
  for (const auto& row : rows) widen(row);
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < width.size(); ++i) {
      const std::string& cell = i < row.size() ? row[i] : std::string();
      line += cell;
      if (i + 1 < width.size()) line += std::string(width[i] - cell.size() + 2, ' ');
    }
    std::fprintf(out, "%s\n", line.c_str());
  };
  print_row(header);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  print_row(rule);
  for (const auto& row : rows) print_row(row);
}

json Report::to_json() const {
  json j = provenance_json();
  j["tool"] = tool;
  j["settings"] = settings;
  j["table"] = {{"header", table.header}, {"rows", table.rows}};
  j["cells"] = cells;
  j["metrics"] = json::array();
  for (const auto& m : metrics)
    j["metrics"].push_back({{"cell", m.cell}, {"name", m.name}, {"value", m.value},
                            {"better", m.higher_is_better ? "higher" : "lower"}});
  j["requests"] = requests;
  j["problems"] = problems;
  for (const auto& [key, value] : details.items()) j[key] = value;
  j["exit_status"] = exit_status();
  return j;
}

int Report::finish(std::FILE* out, const std::string& json_path) const {
  table.print(out);
  for (const auto& p : problems) std::fprintf(out, "problem: %s\n", p.c_str());
  std::fprintf(out, "%s: %s\n", tool.c_str(), problems.empty() ? "ok" : fmt::format("{} problem(s)", problems.size()).c_str());
  if (!json_path.empty()) write_json_file(json_path, to_json());
  return exit_status();
}

json provenance_json() {
  char date[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {{"plumb", std::string(version_string())},
          {"commit", std::string(git_commit())},
          {"date", date},
          {"machine", machine_json()}};
}

void write_json_file(const std::string& path, const json& j) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail("--json {}: cannot open the file for writing", path);
  out << j.dump(2) << '\n';
  if (!out.flush()) fail("--json {}: writing failed", path);
}

std::string format_number(std::optional<double> value, int decimals) {
  if (!value) return "-";
  return fmt::format("{:.{}f}", *value, decimals);
}

}  // namespace plumb::bench
