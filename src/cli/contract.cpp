// `plumb contract`: every production kernel of a backend against its float64 oracle, gates 1-4 and planted
// controls (kernels/contract/contract.h); the last line is the SUMMARY; exit status non-zero on any failure.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "base/error.h"
#include "cli/command.h"
#include "kernels/contract/contract_main.h"
#include "kernels/control.h"

namespace {

struct ContractFlags {
  std::string backend = "cpu", only, json;
  bool list = false, no_controls = false;
};

const plumb::cli::RegisterCommand reg(
    "contract", "check every kernel against its float64 oracle (gates 1-4) and its planted controls",
    [](CLI::App& app) {
      auto f = std::make_shared<ContractFlags>();
      app.add_option("--backend", f->backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
      app.add_option("--only", f->only, "run one kernel");
      app.add_option("--json", f->json, "write the results as JSON");
      app.add_flag("--list", f->list, "list the kernels and their planted controls");
      app.add_flag("--no-controls", f->no_controls, "skip the planted controls");
      return [f] {
        if (plumb::kernels::planted_control() != plumb::kernels::kNoControl)
          std::fprintf(stderr, "note: the contract runs its gates with no control planted, then plants each itself\n");
        const auto kernels = plumb::contract::production_kernels(f->backend);
        if (!f->only.empty() &&
            std::none_of(kernels.begin(), kernels.end(), [&](const auto& k) { return k.name == f->only; }))
          plumb::fail("--only {}: no such kernel on the {} backend (plumb contract --list names them)", f->only, f->backend);
        if (f->list) {
          for (const auto& k : kernels) {
            std::printf("%-24s %s\n", k.name.c_str(), k.description.c_str());
            for (const auto& c : k.controls) std::printf("    control %s\n", c.c_str());
          }
          return 0;
        }
        plumb::contract::ContractCliOptions o;
        o.backend = f->backend;
        o.json_path = f->json;
        o.run.only = f->only;
        o.run.controls = !f->no_controls;
        o.run.progress = isatty(STDERR_FILENO);
        return plumb::contract::contract_main(kernels, o, stdout);
      };
    });

}  // namespace
