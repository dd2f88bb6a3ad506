// Exact conversions between float32 and the narrow formats DeepSeek-V4 stores and computes in:
// bf16, e4m3fn (FP8), e2m1 (FP4) and E8M0 (power-of-two scales). Encoders round to nearest even;
// decoders are exact (every narrow value is a float32).
#pragma once

#include <cstdint>

namespace plumb {

// ---- bf16: the top 16 bits of a float32 ----
uint16_t f32_to_bf16(float x);  // round to nearest even; NaN stays NaN (quiet)
float bf16_to_f32(uint16_t b);
inline float round_bf16(float x) { return bf16_to_f32(f32_to_bf16(x)); }

// ---- e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa; no infinities; 0x7f / 0xff are NaN; max 448 ----
float e4m3_to_f32(uint8_t code);
uint8_t f32_to_e4m3(float x);  // round to nearest even, saturate to +-448, NaN -> 0x7f (sign kept)
inline float round_e4m3(float x) { return e4m3_to_f32(f32_to_e4m3(x)); }
constexpr float kE4m3Max = 448.0f;

// ---- e2m1: 1 sign, 2 exponent (bias 1), 1 mantissa: {0, .5, 1, 1.5, 2, 3, 4, 6}; no NaN or inf ----
float e2m1_to_f32(uint8_t code);  // low 4 bits used
uint8_t f32_to_e2m1(float x);     // round to nearest even, saturate to +-6; NaN maps to +6 (format has no NaN)
inline float round_e2m1(float x) { return e2m1_to_f32(f32_to_e2m1(x)); }
constexpr float kE2m1Max = 6.0f;

// ---- E8M0: an exponent byte, value 2^(e-127); 255 is NaN ----
float e8m0_to_f32(uint8_t code);
double e8m0_to_f64(uint8_t code);
uint8_t e8m0_from_pow2_exponent(int exponent);  // 2^exponent, exponent in [-127, 127]

// The release's activation scale: the smallest power of two s with amax / s <= fmax (amax floored at 1e-4),
// i.e. 2^ceil(log2(max(amax, 1e-4) / fmax)). Returned as its exponent so callers can form exact scales.
int pow2_scale_exponent(float amax, float fmax);

}  // namespace plumb
