// Random inputs for kernel checks, built so that a kernel's promised error can be tight: FP8 activations are made
// exactly representable after the release's per-128 quantization (each block is e4m3 values times a power of two
// with a block maximum that picks that power), so the only error left is accumulation and output rounding.
// Deterministic across platforms (mt19937_64 with plumb's own integer-to-value mapping).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace plumb::contract {

class InputRng {
 public:
  explicit InputRng(uint64_t seed) : gen_(seed) {}
  uint64_t bits() { return gen_(); }
  int32_t uniform_int(int32_t lo, int32_t hi);  // inclusive
  double uniform(double lo, double hi);
  double normal();  // Box-Muller on uniform()

 private:
  std::mt19937_64 gen_;
};

struct Fp8Matrix {
  int64_t n = 0, k = 0;
  std::vector<uint8_t> codes;   // e4m3 [n, k], no NaN codes
  std::vector<uint8_t> scales;  // E8M0 [ceil(n/128), ceil(k/128)]
  double value(int64_t row, int64_t col) const;  // exact dequantized weight
};
Fp8Matrix random_fp8_matrix(int64_t n, int64_t k, InputRng& rng, int scale_lo = -9, int scale_hi = -5);

struct Fp4Matrix {
  int64_t n = 0, k = 0;
  std::vector<uint8_t> codes;   // [n, k/2], low nibble = even element
  std::vector<uint8_t> scales;  // E8M0 [n, k/32]
  double value(int64_t row, int64_t col) const;
};
Fp4Matrix random_fp4_matrix(int64_t n, int64_t k, InputRng& rng, int scale_lo = -6, int scale_hi = -2);

// bf16 bit patterns [rows, k]: per 128-block e4m3 values times 2^e (e in [exp_lo, exp_hi]), block max in [256, 448]
// times 2^e, so the release's activation quantization reproduces them exactly.
std::vector<uint16_t> fp8_exact_activations(int64_t rows, int64_t k, InputRng& rng, int exp_lo = -14, int exp_hi = -9);

// Plants NaN in one element of row 1 and +Inf in row 2 (when those rows exist).
void plant_nonfinite(std::vector<uint16_t>& bf16_rows, int64_t rows, int64_t k);

}  // namespace plumb::contract
