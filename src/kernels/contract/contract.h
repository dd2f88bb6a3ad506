// The kernel contract (ENGINE.md section 3): every production kernel is registered with its float64 oracle, the
// shapes it is checked at, the error bound it promises and its planted controls, and is put through four gates:
//   1 coverage: outputs poisoned with NaN first; every value written; finite where the oracle is finite;
//     NaN/Inf inputs propagate as the oracle says;
//   2 accuracy: per row, max |out - oracle| / max |oracle| within the stated bound (worst row and column kept);
//   3 row invariance: every row of launches of 1..16 rows (in several orders and subsets, every row mix the kernel
//     declares) is bit-equal to that row launched alone, and every variant a row count can select is bit-equal;
//   4 determinism: two runs are bit-equal.
// Each planted control (kernels/control.h) must turn at least one gate red.
//
// To add a kernel: implement a Problem (inputs for N rows; run() of the production kernel over a subset of rows
// as one launch; oracle() per row) and register a KernelSpec in contract/entries (see entries.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace plumb::contract {

// How the rows of one problem relate (a kernel lists the mixes that mean something for it).
enum class RowMix {
  mix_random,            // independent random rows
  mix_same_routing,      // rows routed to the same experts / slots
  mix_disjoint_routing,  // rows routed to different experts
  mix_random_routing,    // routing drawn at random
  mix_multi_slot,        // rows from several slots (states) interleaved
  mix_nonfinite,         // NaN and Inf planted in some rows' inputs
};
const char* row_mix_name(RowMix m);

struct Shape {
  Shape(std::string name_, bool release_) : name(std::move(name_)), release(release_) {}
  std::string name;           // "tiny", "release", ...
  bool release = false;       // release widths: fewer row counts in gate 3, no controls (time)
  std::vector<RowMix> mixes;  // the mixes checked at this shape; empty: the kernel's
  int32_t max_rows = 0;       // rows of a problem at this shape; 0: the kernel's max_rows
};

// One instance of a kernel's problem, built for a shape, a row mix, a row count and a seed.
class Problem {
 public:
  virtual ~Problem() = default;
  virtual int32_t rows() const = 0;
  virtual int32_t width() const = 0;  // output values per row
  // Runs the production kernel once over `subset` (row indices, in this order, one launch) with `variant`,
  // writing width() values per subset row into `out` in subset order. `out` arrives poisoned with NaN.
  virtual void run(std::span<const int32_t> subset, int32_t variant, std::span<double> out) = 0;
  // The float64 oracle of one row.
  virtual void oracle(int32_t row, std::span<double> out) = 0;
  virtual int32_t variants() const { return 1; }
  virtual std::string variant_name(int32_t v) const { return v == 0 ? "default" : "variant " + std::to_string(v); }
  virtual std::string column_name(int32_t col) const { return "col " + std::to_string(col); }
};

struct KernelSpec {
  std::string name;
  std::string description;
  std::vector<Shape> shapes;
  std::vector<RowMix> mixes;
  double bound = 0;         // promised max |out - oracle| / max |oracle| per row (0: exact)
  int32_t max_rows = 16;
  std::vector<std::string> controls;  // full names of planted controls that must go red ("fp8_linear/drop_last_k_block")
  std::function<std::unique_ptr<Problem>(const Shape&, RowMix, int32_t rows, uint64_t seed)> make;
};

// Every value of `out` arrives holding poison(); a value still holding it was never written. A Problem that stages
// outputs in other memory (a backend's) poisons that memory itself and maps what it reads back to poison().
double poison();
bool is_poison(double v);

struct GateOutcome {
  bool pass[4] = {true, true, true, true};
  std::string first_failure;  // the first failed check, in words
  double worst_error = 0;     // gate 2
  std::string worst_where;
};

struct ControlOutcome {
  std::string name;
  bool red = false;
  std::string caught_by;  // "gate 3: ..." or why it was missed
};

struct KernelReport {
  std::string name;
  GateOutcome gates;
  std::vector<ControlOutcome> controls;
  double seconds = 0;
  bool passed() const { return gates.pass[0] && gates.pass[1] && gates.pass[2] && gates.pass[3]; }
};

struct ContractOptions {
  std::string only;                 // run only this kernel
  bool controls = true;             // also run every planted control
  bool progress = false;            // a progress line on stderr
  uint64_t seed = 1;
};

struct ContractReport {
  std::vector<KernelReport> kernels;
  bool controls_ran = false;
  int32_t failed() const;
  int32_t controls_total() const;
  int32_t controls_missed() const;
  int32_t uncontrolled() const;  // kernels with no planted control (when controls ran): a check never shown to fail
  std::string summary_line() const;  // "SUMMARY <n> kernels: ..."
  bool ok() const { return failed() == 0 && controls_missed() == 0 && uncontrolled() == 0; }
};

// Gates 1-4 of one kernel (no controls).
GateOutcome run_gates(const KernelSpec& spec, uint64_t seed, bool include_release_shapes);
ContractReport run_contract(const std::vector<KernelSpec>& kernels, const ContractOptions& options);

}  // namespace plumb::contract
