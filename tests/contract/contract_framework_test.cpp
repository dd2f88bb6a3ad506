// The contract can fail: a small matrix-vector kernel with planted defects (a row reading its neighbour's input,
// the last K block dropped, the last column never written, run-to-run noise, a defect the gates cannot see) turns
// the right gate red, and a wrong kernel makes the run's exit status non-zero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "kernels/contract/contract.h"
#include "kernels/contract/contract_main.h"
#include "kernels/control.h"

namespace plumb::contract {
namespace {

const kernels::ControlId kNeighbour = kernels::register_control("test_matvec", "neighbour_row", "a row reads the previous row of the launch");
const kernels::ControlId kDropBlock = kernels::register_control("test_matvec", "drop_last_k_block", "the last K block of 16 is skipped");
const kernels::ControlId kSkipColumn = kernels::register_control("test_matvec", "skip_last_column", "the last output is never written");
const kernels::ControlId kNoise = kernels::register_control("test_matvec", "run_noise", "a run-dependent value is added");
const kernels::ControlId kHarmless = kernels::register_control("test_matvec", "harmless", "a defect with no effect (must be reported missed)");

int g_runs = 0;

// out[r][c] = sum_k w[c][k] x[r][k], float accumulation in blocks of 16 along K (fixed order).
class MatVec : public Problem {
 public:
  MatVec(int32_t rows, int32_t k, int32_t n, RowMix mix, uint64_t seed, bool wrong_math)
      : rows_(rows), k_(k), n_(n), wrong_math_(wrong_math), x_(size_t(rows * k)), w_(size_t(n * k)) {
    std::mt19937 rng{static_cast<uint32_t>(seed)};
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : x_) v = u(rng);
    for (auto& v : w_) v = u(rng);
    if (mix == RowMix::mix_nonfinite) {
      x_[size_t(1 * k + 3)] = NAN;
      x_[size_t(2 * k + 5)] = INFINITY;
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return n_; }
  int32_t variants() const override { return 2; }  // 0: row loop, 1: same arithmetic in another loop order

  void run(std::span<const int32_t> subset, int32_t variant, std::span<double> out) override {
    ++g_runs;
    const bool neighbour = kernels::planted(kNeighbour), drop = kernels::planted(kDropBlock);
    const bool skip = kernels::planted(kSkipColumn), noise = kernels::planted(kNoise);
    const int32_t blocks = k_ / 16 - (drop ? 1 : 0);
    auto row_value = [&](size_t i, int32_t c) {
      const int32_t r = neighbour && i > 0 ? subset[i - 1] : subset[i];
      float acc = 0;
      for (int32_t b = 0; b < blocks; ++b) {
        float part = 0;
        for (int32_t k = b * 16; k < b * 16 + 16; ++k) part += w_[size_t(c * k_ + k)] * x_[size_t(r * k_ + k)];
        acc += part;
      }
      if (wrong_math_) acc *= 1.01f;
      if (noise) acc += float(g_runs) * 1e-6f;
      return acc;
    };
    const int32_t cols = skip ? n_ - 1 : n_;
    if (variant == 0) {
      for (size_t i = 0; i < subset.size(); ++i)
        for (int32_t c = 0; c < cols; ++c) out[i * size_t(n_) + size_t(c)] = row_value(i, c);
    } else {
      for (int32_t c = 0; c < cols; ++c)
        for (size_t i = 0; i < subset.size(); ++i) out[i * size_t(n_) + size_t(c)] = row_value(i, c);
    }
  }
  void oracle(int32_t r, std::span<double> out) override {
    for (int32_t c = 0; c < n_; ++c) {
      double acc = 0;
      for (int32_t k = 0; k < k_; ++k) acc += double(w_[size_t(c * k_ + k)]) * double(x_[size_t(r * k_ + k)]);
      out[size_t(c)] = acc;
    }
  }

 private:
  int32_t rows_, k_, n_;
  bool wrong_math_;
  std::vector<float> x_, w_;
};

KernelSpec matvec_spec(bool wrong_math, std::vector<std::string> controls) {
  KernelSpec s;
  s.name = wrong_math ? "test_matvec_wrong" : "test_matvec";
  s.shapes = {{"tiny", false}};
  s.mixes = {RowMix::mix_random, RowMix::mix_nonfinite};
  s.bound = 1e-5;
  s.max_rows = 8;
  s.controls = std::move(controls);
  s.make = [wrong_math](const Shape&, RowMix mix, int32_t rows, uint64_t seed) {
    return std::make_unique<MatVec>(rows, 64, 12, mix, seed, wrong_math);
  };
  return s;
}

TEST(ContractFramework, ACorrectKernelPassesEveryGate) {
  const auto g = run_gates(matvec_spec(false, {}), 1, true);
  EXPECT_TRUE(g.pass[0] && g.pass[1] && g.pass[2] && g.pass[3]) << g.first_failure;
  EXPECT_GT(g.worst_error, 0.0);
  EXPECT_LT(g.worst_error, 1e-5);
}

TEST(ContractFramework, EachPlantedDefectTurnsItsGateRed) {
  const auto spec = matvec_spec(false, {});
  struct Case {
    kernels::ControlId id;
    int gate;
  } cases[] = {{kNeighbour, 3}, {kDropBlock, 2}, {kSkipColumn, 1}, {kNoise, 4}};
  for (const auto& c : cases) {
    kernels::PlantedControl plant(c.id);
    const auto g = run_gates(spec, 1, false);
    EXPECT_FALSE(g.pass[c.gate - 1]) << "control " << c.id << " should turn gate " << c.gate << " red";
  }
}

TEST(ContractFramework, WrongKernelAndMissedControlMakeTheRunFail) {
  std::FILE* sink = std::tmpfile();
  ContractCliOptions options;
  // A correct kernel with every control caught: exit 0.
  EXPECT_EQ(contract_main({matvec_spec(false, {"test_matvec/neighbour_row", "test_matvec/drop_last_k_block"})}, options, sink), 0);
  // A deliberately wrong kernel: gate 2 red, exit non-zero.
  const std::vector<KernelSpec> wrong = {matvec_spec(true, {})};
  const auto report = run_contract(wrong, options.run);
  ASSERT_EQ(report.kernels.size(), 1u);
  EXPECT_FALSE(report.kernels[0].gates.pass[1]);
  EXPECT_EQ(report.summary_line(), "SUMMARY 1 kernels: 0 pass gates 1-4, 1 fail; 0 controls: 0 red as planted, 0 missed; "
                                    "1 kernels without a planted control");
  EXPECT_NE(contract_main(wrong, options, sink), 0);
  // A correct kernel with no planted control: its check was never shown to fail, so the run fails.
  const std::vector<KernelSpec> unproven = {matvec_spec(false, {})};
  const auto unproven_report = run_contract(unproven, options.run);
  EXPECT_EQ(unproven_report.uncontrolled(), 1);
  EXPECT_FALSE(unproven_report.ok());
  EXPECT_NE(contract_main(unproven, options, sink), 0);
  // A control the gates cannot see, and one that does not exist: both missed, exit non-zero.
  const std::vector<KernelSpec> blind = {matvec_spec(false, {"test_matvec/harmless", "test_matvec/not_compiled"})};
  const auto blind_report = run_contract(blind, options.run);
  EXPECT_EQ(blind_report.controls_missed(), 2);
  EXPECT_EQ(blind_report.summary_line(), "SUMMARY 1 kernels: 1 pass gates 1-4, 0 fail; 2 controls: 0 red as planted, 2 missed");
  EXPECT_NE(contract_main(blind, options, sink), 0);
  std::fclose(sink);
}

}  // namespace
}  // namespace plumb::contract
