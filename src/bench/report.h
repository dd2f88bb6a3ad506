// What every benchmark tool hands back: a table for the terminal and the same results as JSON, with the commit,
// version, date and machine recorded, every request's record (token_sha256 included), the speed metrics that
// `bench ab` compares, and the problems that make the exit status non-zero (a failed request, an unequal or
// failed exactness cell, an unmet --require-* flag).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace plumb::bench {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  void print(std::FILE* out) const;
};

// A speed number of one cell, as `bench ab` compares it across runs.
struct Metric {
  std::string cell;  // "level=4 temperature=0"
  std::string name;  // "aggregate_tok_s"
  double value = 0;
  bool higher_is_better = true;
};

struct Report {
  std::string tool;
  nlohmann::json settings = nlohmann::json::object();
  Table table;
  nlohmann::json cells = nlohmann::json::array();     // one object per table row, machine-readable
  nlohmann::json requests = nlohmann::json::array();  // every request made, with its token_sha256
  std::vector<Metric> metrics;
  std::vector<std::string> problems;
  nlohmann::json details = nlohmann::json::object();  // tool-specific top-level fields (bench ab: its runs)

  int exit_status() const { return problems.empty() ? 0 : 1; }
  nlohmann::json to_json() const;
  // Prints the table and the problems to `out`, and writes the JSON to `json_path` when it is not empty.
  int finish(std::FILE* out, const std::string& json_path) const;
};

// The identity every result carries: plumb's version and commit, the date (UTC) and the machine.
nlohmann::json provenance_json();

// Writes `j` to `path` (throws plumb::Error naming the path when it cannot).
void write_json_file(const std::string& path, const nlohmann::json& j);

// "12.3", "-" for nothing: table cells.
std::string format_number(std::optional<double> value, int decimals = 1);

}  // namespace plumb::bench
