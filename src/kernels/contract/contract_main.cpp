#include "kernels/contract/contract_main.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/version.h"

namespace plumb::contract {
namespace {

std::string gate_marks(const GateOutcome& g) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += g.pass[i] ? char('1' + i) : 'x';
  return s;
}

nlohmann::json to_json(const ContractReport& report, const std::string& backend) {
  nlohmann::json j;
  j["plumb"] = std::string(version_string());
  j["backend"] = backend;
  j["summary"] = report.summary_line();
  j["ok"] = report.ok();
  for (const auto& k : report.kernels) {
    nlohmann::json kj;
    kj["name"] = k.name;
    kj["pass"] = k.passed();
    kj["gates"] = {k.gates.pass[0], k.gates.pass[1], k.gates.pass[2], k.gates.pass[3]};
    kj["first_failure"] = k.gates.first_failure;
    kj["worst_error"] = k.gates.worst_error;
    kj["worst_where"] = k.gates.worst_where;
    kj["seconds"] = k.seconds;
    for (const auto& c : k.controls) kj["controls"].push_back({{"name", c.name}, {"red", c.red}, {"caught_by", c.caught_by}});
    j["kernels"].push_back(kj);
  }
  return j;
}

}  // namespace

int contract_main(const std::vector<KernelSpec>& kernels, const ContractCliOptions& options, std::FILE* out) {
  const auto report = run_contract(kernels, options.run);
  for (const auto& k : report.kernels) {
    int red = 0;
    for (const auto& c : k.controls) red += c.red;
    std::fprintf(out, "%-24s gates %s %-4s worst %.2e  controls %d/%zu red  %.1fs\n", k.name.c_str(),
                 gate_marks(k.gates).c_str(), k.passed() ? "PASS" : "FAIL", k.gates.worst_error, red,
                 k.controls.size(), k.seconds);
    if (!k.passed()) std::fprintf(out, "    %s\n", k.gates.first_failure.c_str());
    if (!k.gates.worst_where.empty()) std::fprintf(out, "    worst at %s\n", k.gates.worst_where.c_str());
    for (const auto& c : k.controls)
      std::fprintf(out, "    control %-40s %s  %s\n", c.name.c_str(), c.red ? "red   " : "MISSED", c.caught_by.c_str());
  }
  std::fprintf(out, "%s\n", report.summary_line().c_str());
  if (!options.json_path.empty()) {
    std::ofstream f(options.json_path);
    f << to_json(report, options.backend).dump(2) << "\n";
  }
  return report.ok() && !report.kernels.empty() ? 0 : 1;
}

}  // namespace plumb::contract
