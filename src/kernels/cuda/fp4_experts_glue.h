// The experts launch's workspace and its kernels around the two passes (fp4_experts_glue.cu): grouping the
// (row, k) pairs by expert with the input's quantization, and the combine of each row's expert outputs.
#pragma once

#include <cstdint>

#include "kernels/cuda/fp4_experts.h"
#include "kernels/cuda/launch.h"

namespace plumb::cuda::experts_detail {

constexpr int kMaxTopK = 16;
constexpr int kListThreads = 1024;  // one thread per expert in the grouping block
constexpr int kFetchCounters = 4;   // gate/up and down, each an 8-row and a 16-row launch

struct Workspace {
  int32_t* counts;
  int32_t* offsets;   // [experts + 1] by active slot
  int32_t* active;    // expert id of each active slot
  int32_t* n_active;
  int32_t* list;      // pair ids grouped by active slot, ascending
  unsigned* arrivals; // [experts * max(tiles)] split arrival counters, zero between calls
  unsigned* fetched;  // [4] the capped pass launches' item counters, zeroed by prepare_experts
  float* partial;     // split partials, reused by both passes
  uint8_t* xq;        // [rows, hidden] e4m3 and
  float* xs;          // [rows, hidden / 128] scales of the input
  uint16_t* h;        // [pairs, inter] bf16
  uint8_t* hq;        // [pairs, inter] e4m3 and
  float* hs;          // [pairs, inter / 128] scales of h
  uint16_t* o;        // [pairs, hidden] bf16
};

// Where the up pass's rows come from: [rows, stride] bf16 bits, or float32 when f32.
struct ExpertsInput {
  const void* x;
  bool f32;
  int64_t stride, rows, hidden;
};

// One launch: block 0 groups the pairs by expert; blocks 1..quant_blocks quantize the input rows for the up pass.
void launch_prepare_experts(const int32_t* ids, int64_t pairs, int experts, const Workspace& ws,
                            const ExpertsInput& in, int64_t quant_blocks, Stream stream);
// y[row] = the row's expert outputs o summed in ascending expert id, then the shared expert's output (io: y,
// y_f32, round_bf16), or then io.addend as Backend::add adds it.
void launch_combine(const uint16_t* o, const int32_t* ids, int32_t top_k, const uint16_t* shared, int64_t rows,
                    int64_t hidden, const ExpertsIo& io, Stream stream);

}  // namespace plumb::cuda::experts_detail
