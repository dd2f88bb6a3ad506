// The release's block rounding of activations computed exactly in float64, as an oracle independent of the
// kernels: per block, the scale 2^e with e the smallest integer such that max(amax, floor) / 2^e <= fmax, values
// rounded to the nearest e4m3 / e2m1 grid value (ties to the even code) and multiplied back by the scale.
// Non-finite values as the kernels treat them: NaN is left out of the maximum and stays NaN; an infinite maximum
// gives the scale 2^128, so an infinity stays infinite and the block's finite values become 0.
#pragma once

#include <cstdint>

#include "kernels/ops.h"

namespace plumb::contract {

// In place: blocks of `block` values of x[0, n) rounded through `format` and back, as float32 stores them.
void round_blocks_exactly(kernels::SimFormat format, double* x, int64_t n, int64_t block);

}  // namespace plumb::contract
