// Runs the contract over a list of kernels (gates, then every planted control) and summarises it.
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "kernels/contract/contract.h"
#include "kernels/control.h"

namespace plumb::contract {

int32_t ContractReport::failed() const {
  int32_t n = 0;
  for (const auto& k : kernels) n += k.passed() ? 0 : 1;
  return n;
}

int32_t ContractReport::controls_total() const {
  int32_t n = 0;
  for (const auto& k : kernels) n += int32_t(k.controls.size());
  return n;
}

int32_t ContractReport::controls_missed() const {
  int32_t n = 0;
  for (const auto& k : kernels)
    for (const auto& c : k.controls) n += c.red ? 0 : 1;
  return n;
}

int32_t ContractReport::uncontrolled() const {
  int32_t n = 0;
  for (const auto& k : kernels) n += controls_ran && k.controls.empty() ? 1 : 0;
  return n;
}

std::string ContractReport::summary_line() const {
  const int32_t n = int32_t(kernels.size());
  const int32_t total = controls_total(), missed = controls_missed();
  std::string line = fmt::format("SUMMARY {} kernels: {} pass gates 1-4, {} fail; {} controls: {} red as planted, {} missed",
                                 n, n - failed(), failed(), total, total - missed, missed);
  if (uncontrolled() > 0) line += fmt::format("; {} kernels without a planted control", uncontrolled());
  return line;
}

ContractReport run_contract(const std::vector<KernelSpec>& kernels, const ContractOptions& options) {
  ContractReport report;
  report.controls_ran = options.controls;
  size_t done = 0;
  for (const auto& spec : kernels) {
    ++done;
    if (!options.only.empty() && spec.name != options.only) continue;
    if (options.progress) std::fprintf(stderr, "\r\033[K[%zu/%zu] %s ...", done, kernels.size(), spec.name.c_str());
    const auto t0 = std::chrono::steady_clock::now();
    KernelReport k;
    k.name = spec.name;
    {
      kernels::PlantedControl none(kernels::kNoControl);
      k.gates = run_gates(spec, options.seed, true);
    }
    if (options.controls) {
      for (const auto& name : spec.controls) {
        ControlOutcome c{name, false, ""};
        const auto id = kernels::find_control(name);
        if (!id) {
          c.caught_by = "not compiled in";
        } else {
          kernels::PlantedControl plant(*id);
          const auto g = run_gates(spec, options.seed, false);
          c.red = !(g.pass[0] && g.pass[1] && g.pass[2] && g.pass[3]);
          c.caught_by = c.red ? g.first_failure : "every gate stayed green";
        }
        k.controls.push_back(std::move(c));
      }
    }
    k.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report.kernels.push_back(std::move(k));
  }
  if (options.progress) std::fprintf(stderr, "\r\033[K");
  return report;
}

}  // namespace plumb::contract
