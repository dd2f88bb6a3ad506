// Memory, inputs and the Binding of the contract entries that check Backend ops (op_problem.h says what each does).
#include "kernels/contract/entries/op_problem.h"

#include <cmath>
#include <cstring>

#include "base/error.h"
#include "base/number_formats.h"
#include "kernels/control.h"
#include "kernels/cuda/cuda_backend.h"

namespace plumb::contract {
namespace {

// Poison patterns of backend memory: a float NaN payload and an index no op writes.
constexpr uint32_t kPoisonF32 = 0x7fc0bad1u;
constexpr int32_t kPoisonI32 = 0x7bad0bad;

float poison_f32() {
  float f;
  std::memcpy(&f, &kPoisonF32, 4);
  return f;
}

bool is_poison_f32(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits == kPoisonF32;
}

// Host bytes of `count` values in `dtype` from doubles (exactly representable in float32 by construction).
std::vector<std::byte> encode(DType dtype, const double* values, size_t count) {
  std::vector<std::byte> bytes(count * dtype_size(dtype));
  if (dtype == DType::dtype_f64) {
    std::memcpy(bytes.data(), values, count * 8);
  } else {
    PLUMB_CHECK(dtype == DType::dtype_f32);
    for (size_t i = 0; i < count; ++i) {
      const float f = float(values[i]);
      std::memcpy(bytes.data() + i * 4, &f, 4);
    }
  }
  return bytes;
}

DeviceTensor allocate(kernels::Backend& b, DType dtype, int64_t rows, int64_t cols) {
  DeviceTensor d;
  d.buffer = b.allocate(size_t(std::max<int64_t>(rows * cols, 1)) * dtype_size(dtype));
  d.t = kernels::Tensor::of(d.buffer.data(), dtype, rows, cols);
  return d;
}

}  // namespace

std::vector<std::string> Binding::controls(const std::string& family, std::initializer_list<const char*> names) const {
  std::vector<std::string> out;
  for (const char* name : names) {
    const std::string full = family + control_suffix + "/" + name;
    if (controls_required || kernels::find_control(full)) out.push_back(full);
  }
  return out;
}

Binding cpu_binding() {
  return {"cpu", [] { return kernels::make_host_backend(kernels::Numerics::release); }, "", true};
}

Binding cuda_binding() { return {"cuda", [] { return kernels::make_cuda_backend(); }, "_cuda", false}; }

double bf16_round(double v) { return double(round_bf16(float(v))); }

HostRows random_rows(int64_t rows, int64_t cols, double scale, InputRng& rng) {
  HostRows x(rows, cols);
  for (auto& v : x.v) v = bf16_round(scale * rng.normal());
  return x;
}

HostRows bf16_rows(const std::vector<uint16_t>& bits, int64_t rows, int64_t cols) {
  PLUMB_CHECK(int64_t(bits.size()) == rows * cols);
  HostRows x(rows, cols);
  for (size_t i = 0; i < bits.size(); ++i) x.v[i] = double(bf16_to_f32(bits[i]));
  return x;
}

void plant_nonfinite(HostRows& x) {
  if (x.rows > 1) x.row(1)[3 % x.cols] = std::nan("");
  if (x.rows > 2) x.row(2)[x.cols / 2] = INFINITY;
}

DeviceTensor poisoned_act(kernels::Backend& b, int64_t rows, int64_t cols) {
  DeviceTensor d = allocate(b, b.act_dtype(), rows, cols);
  const size_t n = size_t(rows * cols);
  if (b.act_dtype() == DType::dtype_f64) {
    const std::vector<double> p(n, poison());
    b.upload(p.data(), d.t);
  } else {
    const std::vector<float> p(n, poison_f32());
    b.upload(p.data(), d.t);
  }
  return d;
}

DeviceTensor poisoned_i32(kernels::Backend& b, int64_t rows, int64_t cols) {
  DeviceTensor d = allocate(b, DType::dtype_i32, rows, cols);
  const std::vector<int32_t> p(size_t(rows * cols), kPoisonI32);
  b.upload(p.data(), d.t);
  return d;
}

DeviceTensor upload_rows(kernels::Backend& b, const HostRows& x, std::span<const int32_t> subset) {
  std::vector<double> packed(subset.size() * size_t(x.cols));
  for (size_t i = 0; i < subset.size(); ++i)
    std::memcpy(packed.data() + i * size_t(x.cols), x.row(subset[i]), size_t(x.cols) * 8);
  DeviceTensor d = allocate(b, b.act_dtype(), int64_t(subset.size()), x.cols);
  b.upload(encode(b.act_dtype(), packed.data(), packed.size()).data(), d.t);
  return d;
}

DeviceTensor upload_all(kernels::Backend& b, const HostRows& x) {
  DeviceTensor d = allocate(b, b.act_dtype(), x.rows, x.cols);
  b.upload(encode(b.act_dtype(), x.v.data(), x.v.size()).data(), d.t);
  return d;
}

DeviceTensor upload_i32(kernels::Backend& b, std::span<const int32_t> values, int64_t rows, int64_t cols) {
  PLUMB_CHECK(int64_t(values.size()) == rows * cols);
  DeviceTensor d = allocate(b, DType::dtype_i32, rows, cols);
  b.upload(values.data(), d.t);
  return d;
}

void append_values(kernels::Backend& b, const kernels::Tensor& t, std::vector<double>& out) {
  const size_t n = size_t(t.rows * t.cols);
  if (t.dtype == DType::dtype_f64) {
    std::vector<double> v(n);
    b.download(t, v.data());
    out.insert(out.end(), v.begin(), v.end());
  } else if (t.dtype == DType::dtype_f32) {
    std::vector<float> v(n);
    b.download(t, v.data());
    for (float f : v) out.push_back(is_poison_f32(f) ? poison() : double(f));
  } else {
    PLUMB_CHECK(t.dtype == DType::dtype_i32);
    std::vector<int32_t> v(n);
    b.download(t, v.data());
    for (int32_t i : v) out.push_back(i == kPoisonI32 ? poison() : double(i));
  }
}

kernels::Weight weight_of(const Fp8Matrix& m) {
  return {kernels::WeightFormat::fp8_blocks, m.n, m.k, m.codes.data(), m.scales.data()};
}

kernels::Weight weight_of(const Fp4Matrix& m) {
  return {kernels::WeightFormat::fp4_blocks, m.n, m.k, m.codes.data(), m.scales.data()};
}

kernels::Weight bf16_weight(const std::vector<uint16_t>& bits, int64_t rows, int64_t cols) {
  PLUMB_CHECK(int64_t(bits.size()) == rows * cols);
  return {kernels::WeightFormat::bf16, rows, cols, bits.data(), nullptr};
}

kernels::Weight f32_weight(const std::vector<float>& v, int64_t rows, int64_t cols) {
  PLUMB_CHECK(int64_t(v.size()) == rows * cols);
  return {kernels::WeightFormat::f32, rows, cols, v.data(), nullptr};
}

kernels::Weight i64_weight(const std::vector<int64_t>& v, int64_t rows, int64_t cols) {
  PLUMB_CHECK(int64_t(v.size()) == rows * cols);
  return {kernels::WeightFormat::i64, rows, cols, v.data(), nullptr};
}

std::vector<uint16_t> random_bf16(size_t n, double scale, InputRng& rng) {
  std::vector<uint16_t> v(n);
  for (auto& b : v) b = f32_to_bf16(float(scale * rng.normal()));
  return v;
}

std::vector<float> random_f32(size_t n, double scale, InputRng& rng) {
  std::vector<float> v(n);
  for (auto& f : v) f = round_bf16(float(scale * rng.normal()));
  return v;
}

std::vector<int32_t> first_rows(int32_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v[size_t(i)] = i;
  return v;
}

OpProblem::OpProblem(const Binding& binding)
    : backends_{binding.make(), kernels::make_host_backend(kernels::Numerics::oracle)} {}

void OpProblem::run(std::span<const int32_t> subset, int32_t variant, std::span<double> out) {
  const std::vector<double> v = compute(kTest, subset, variant);
  PLUMB_CHECK(v.size() == out.size());
  std::copy(v.begin(), v.end(), out.begin());
}

void OpProblem::oracle(int32_t row, std::span<double> out) {
  const int32_t one[1] = {row};
  const std::vector<double> v = compute(kOracle, one, 0);
  PLUMB_CHECK(v.size() == out.size());
  std::copy(v.begin(), v.end(), out.begin());
}

}  // namespace plumb::contract
