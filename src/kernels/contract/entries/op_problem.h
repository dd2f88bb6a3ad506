// Scaffolding shared by the contract entries that check an op of the kernels::Backend interface: which backend is
// under test and how its planted controls are named (Binding), host inputs, memory on a backend (inputs uploaded
// for a subset of rows, outputs poisoned before the op and read back as doubles), weight views of host data, and
// OpProblem, a Problem whose kernel is the op on the backend under test and whose oracle is the same op on the
// float64 reference backend given the same inputs.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/contract/contract.h"
#include "kernels/contract/inputs.h"

namespace plumb::contract {

// The backend the generic entries check.
struct Binding {
  std::string backend;  // "cpu", "cuda"
  std::function<std::unique_ptr<kernels::Backend>()> make;
  std::string control_suffix;  // planted controls of kernel family F are named "F<suffix>/<name>"
  bool controls_required = true;  // false: keep only the controls compiled into this backend's ops
  // The full names of a kernel family's planted controls on this backend.
  std::vector<std::string> controls(const std::string& family, std::initializer_list<const char*> names) const;
};
Binding cpu_binding();
Binding cuda_binding();

// Host rows of values exactly representable in float32, row-major.
struct HostRows {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  HostRows() = default;
  HostRows(int64_t r, int64_t c) : rows(r), cols(c), v(size_t(r * c), 0.0) {}
  double* row(int64_t r) { return v.data() + r * cols; }
  const double* row(int64_t r) const { return v.data() + r * cols; }
};
double bf16_round(double v);
// bf16 values of a normal distribution with standard deviation `scale`.
HostRows random_rows(int64_t rows, int64_t cols, double scale, InputRng& rng);
HostRows bf16_rows(const std::vector<uint16_t>& bits, int64_t rows, int64_t cols);
// NaN in one value of row 1 and +Inf in one value of row 2 (when those rows exist).
void plant_nonfinite(HostRows& x);

// A tensor in a backend's memory.
struct DeviceTensor {
  kernels::Buffer buffer;
  kernels::Tensor t;
};
// An activation (the backend's act dtype) or i32 tensor filled with the poison pattern.
DeviceTensor poisoned_act(kernels::Backend& b, int64_t rows, int64_t cols);
DeviceTensor poisoned_i32(kernels::Backend& b, int64_t rows, int64_t cols);
// Rows `subset` of x, packed in subset order, as an activation tensor.
DeviceTensor upload_rows(kernels::Backend& b, const HostRows& x, std::span<const int32_t> subset);
DeviceTensor upload_all(kernels::Backend& b, const HostRows& x);
DeviceTensor upload_i32(kernels::Backend& b, std::span<const int32_t> values, int64_t rows, int64_t cols);
// Appends t's values row by row as doubles; an element still holding the poison pattern becomes poison().
void append_values(kernels::Backend& b, const kernels::Tensor& t, std::vector<double>& out);

// Weight views of host data (the data must outlive the views and every backend copy of them).
kernels::Weight weight_of(const Fp8Matrix& m);
kernels::Weight weight_of(const Fp4Matrix& m);
kernels::Weight bf16_weight(const std::vector<uint16_t>& bits, int64_t rows, int64_t cols);
kernels::Weight f32_weight(const std::vector<float>& v, int64_t rows, int64_t cols);
kernels::Weight i64_weight(const std::vector<int64_t>& v, int64_t rows, int64_t cols);
std::vector<uint16_t> random_bf16(size_t n, double scale, InputRng& rng);
std::vector<float> random_f32(size_t n, double scale, InputRng& rng);  // bf16-exact values

// The subset [0, n) in order.
std::vector<int32_t> first_rows(int32_t n);

// A kernel that is one op of the backend under test, checked against the same op of the float64 reference
// backend on the same inputs. Subclasses upload their weights and state to both sides and implement compute().
class OpProblem : public Problem {
 public:
  explicit OpProblem(const Binding& binding);
  void run(std::span<const int32_t> subset, int32_t variant, std::span<double> out) override;
  void oracle(int32_t row, std::span<double> out) override;

 protected:
  static constexpr int kTest = 0, kOracle = 1;
  kernels::Backend& backend(int side) { return *backends_[size_t(side)]; }
  // Runs the op on `side` over `rows` as one launch; width() values per row, in `rows` order.
  virtual std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t variant) = 0;

 private:
  std::array<std::unique_ptr<kernels::Backend>, 2> backends_;
};

}  // namespace plumb::contract
