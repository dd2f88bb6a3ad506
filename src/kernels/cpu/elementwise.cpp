// Release embedding lookup, FP8/FP4 rounding simulation, Hadamard transform (float32 butterflies, bf16 out) and the
// float32 sum rounded to bf16.
#include <cmath>

#include "base/error.h"
#include "kernels/control.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/release_math.h"
#include "kernels/weight_decode.h"

namespace plumb::kernels::cpu {
namespace {

const ControlId kTokenOffByOne = register_control("embed", "token_off_by_one", "each row reads the next token's row");
const ControlId kRepeatSkipped =
    register_control("add", "repeat_skipped", "the second operand is added to its first copy's columns only");
const ControlId kLastStageSkipped =
    register_control("hadamard", "last_stage_skipped", "the last butterfly stage is left out");

}  // namespace

void CpuBackend::embed(const Weight& table, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) {
  PLUMB_CHECK(out.dtype == DType::dtype_f32 && out.rows == int64_t(tokens.size()) && out.cols == copies * table.cols);
  const int64_t shift = planted(kTokenOffByOne) ? 1 : 0;
  for (int64_t r = 0; r < out.rows; ++r) {
    PLUMB_CHECK(tokens[size_t(r)] >= 0 && tokens[size_t(r)] < table.rows);
    const int64_t token = (tokens[size_t(r)] + shift) % table.rows;
    for (int64_t c = 0; c < copies; ++c) decode_weight_row(table, token, 0, table.cols, out.row<float>(r) + c * table.cols);
  }
}

void CpuBackend::quant_sim(QuantSimParams p, const Tensor& x) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && 0 <= p.col_begin && p.col_begin <= p.col_end && p.col_end <= x.cols);
  PLUMB_CHECK(p.block > 0 && (p.col_end - p.col_begin) % p.block == 0);
  for (int64_t r = 0; r < x.rows; ++r) {
    float* v = x.row<float>(r) + p.col_begin;
    if (p.format == SimFormat::fp8_e4m3) {
      simulate_fp8(v, p.col_end - p.col_begin, p.block);
    } else {
      simulate_fp4(v, p.col_end - p.col_begin, p.block);
    }
  }
}

void CpuBackend::hadamard(HadamardParams p, const Tensor& x) {
  PLUMB_CHECK(x.dtype == DType::dtype_f32 && x.cols % p.size == 0 && (p.size & (p.size - 1)) == 0);
  const float scale = float(1.0 / std::sqrt(double(p.size)));
  const int64_t stages_end = planted(kLastStageSkipped) ? p.size / 2 : p.size;
  for (int64_t r = 0; r < x.rows; ++r)
    for (int64_t c0 = 0; c0 < x.cols; c0 += p.size) {
      float* v = x.row<float>(r) + c0;
      for (int64_t h = 1; h < stages_end; h *= 2)
        for (int64_t i = 0; i < p.size; i += 2 * h)
          for (int64_t j = i; j < i + h; ++j) {
            const float a = v[j], b = v[j + h];
            v[j] = a + b;
            v[j + h] = a - b;
          }
      for (int64_t i = 0; i < p.size; ++i) v[i] = bf16(v[i] * scale);
    }
}

void CpuBackend::add(const Tensor& a, const Tensor& b, const Tensor& out) {
  PLUMB_CHECK(a.dtype == DType::dtype_f32 && b.dtype == DType::dtype_f32 && out.dtype == DType::dtype_f32);
  PLUMB_CHECK(a.rows == out.rows && b.rows == out.rows && a.cols == out.cols && out.cols % b.cols == 0);
  const bool repeat = !planted(kRepeatSkipped);
  for (int64_t r = 0; r < out.rows; ++r)
    for (int64_t c = 0; c < out.cols; ++c)
      out.row<float>(r)[c] = bf16(a.row<float>(r)[c] + (repeat || c < b.cols ? b.row<float>(r)[c % b.cols] : 0.0f));
}

}  // namespace plumb::kernels::cpu
