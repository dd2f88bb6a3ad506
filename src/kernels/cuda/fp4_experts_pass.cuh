// The routed experts' pass kernel, device side: one warp's passes over an expert's pairs (FP4 weights widened to
// e4m3 once a pass for all of its rows), the block scales, the SwiGLU epilogue and the K-split sums. Included by
// fp4_experts.cu alone, which picks the kernel and launches it; hence the anonymous namespace.
#pragma once

#include <cstdint>

#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/experts_units.h"
#include "kernels/cuda/fp4_experts_glue.h"
#include "kernels/cuda/fp4_widen.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/mma_fp8.cuh"

namespace plumb::cuda {
using namespace experts_detail;
namespace {

constexpr int kWarpsPerBlock = 4;
enum : int { control_none = 0, control_first_row = 1, control_scale_per_64 = 2 };

__device__ __forceinline__ uint32_t word_of(const uint4& a, const uint4& b, int i) {
  switch (i) {
    case 0: return a.x;
    case 1: return a.y;
    case 2: return a.z;
    case 3: return a.w;
    case 4: return b.x;
    case 5: return b.y;
    case 6: return b.z;
    default: return b.w;
  }
}

// From 9 rows on, a pass launch serves either the experts with at most 8 pairs (in 8-row passes) or those with more
// (in 16-row passes, each 32-wide weight group decoded once for 16 rows); rows alone or forced pass sizes take all.
enum ExpertsTaken : int { take_all = 0, take_small = 1, take_large = 2 };
constexpr int32_t kSmallExpertPairs = 8;
constexpr int32_t kFewExpertPairs = 4;  // an even-columns pass's pairs

// The active slot of the launch's `index`-th expert with more than kSmallExpertPairs pairs, or -1 (warp-uniform).
__device__ __forceinline__ int64_t nth_large_slot(const int32_t* offsets, int32_t n_active, int index) {
  const int lane = int(threadIdx.x % 32);
  for (int base = 0; base < n_active; base += 32) {
    const int s = base + lane;
    const bool large = s < n_active && offsets[s + 1] - offsets[s] > kSmallExpertPairs;
    const unsigned mask = __ballot_sync(0xffffffffu, large);
    const int count = __popc(mask);
    if (index < count) return base + __fns(mask, 0, index + 1);
    index -= count;
  }
  return -1;
}

struct PassArgs {
  Workspace ws;
  const uint8_t* const* codes;  // per expert: w1 (gate/up) or w2 (down), shuffled layout
  const uint8_t* const* scales;
  const uint8_t* const* codes3; // per expert: w3 (gate/up only)
  const uint8_t* const* scales3;
  int64_t out_features, k;
  int64_t tiles;           // out_features / 16
  int64_t splits;
  const uint8_t* xq;       // e4m3 rows the B fragments come from, and
  const float* xs;         // their per-128 scales
  int32_t top_k;
  bool by_row;             // a pair's input row: its token row (gate/up) or the pair itself (down)
  const float* weights;    // routing weights (gate/up)
  float limit;
  uint16_t* out;           // [pairs, out_features]
  int control;
  int experts_taken;       // which active experts the launch serves (ExpertsTaken)
  bool coalesced;          // the codes' layout (fp4_lane_byte)
  unsigned* fetched;       // a capped grid's item counter (zero at launch), or null: a warp for every item
  bool spread;             // a capped grid's first turn deals units across its blocks (PLUMB_EXPERTS_SPREAD)
  bool from_end;           // spread from the last block back (PLUMB_EXPERTS_DEAL_FROM_END)
  bool pairs_apart;        // a K-split pair on warps i and i + 2 (numbered_warp, PLUMB_EXPERTS_PAIRS_APART)
};

// The four e8m0 scales of a word as floats, byte j to v[j]: the values e8m0_value gives. Shifting the byte into
// the float's exponent is exact for every byte but 0 (2^-127, a subnormal) and 255 (NaN); only a word holding one
// of those takes the byte-by-byte path, so the common case costs two instructions a scale, not a branch tree.
__device__ __forceinline__ void e8m0_word_values(uint32_t w, float (&v)[4]) {
  const uint32_t has_zero = (w - 0x01010101u) & ~w & 0x80808080u, has_ff = (~w - 0x01010101u) & w & 0x80808080u;
  if ((has_zero | has_ff) == 0) {
    v[0] = __uint_as_float((w << 23) & 0x7f800000u);
    v[1] = __uint_as_float((w << 15) & 0x7f800000u);
    v[2] = __uint_as_float((w << 7) & 0x7f800000u);
    v[3] = __uint_as_float((w >> 1) & 0x7f800000u);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = e8m0_value(uint8_t(w >> (8 * j)));
  }
}

// A super-block's weight scales of one matrix, for rows g and g + 8 of the tile and blocks j = 0..3. The planted
// scale_per_64 control gives blocks 1 and 3 the scales of blocks 0 and 2.
struct BlockScales {
  float g[4], g8[4];
};
__device__ __forceinline__ BlockScales block_scales(uint32_t sg, uint32_t sg8, int control) {
  if (control == control_scale_per_64) sg = __byte_perm(sg, 0, 0x2200), sg8 = __byte_perm(sg8, 0, 0x2200);
  BlockScales s;
  e8m0_word_values(sg, s.g);
  e8m0_word_values(sg8, s.g8);
  return s;
}

// Promotes one 32-block's MMA sums: acc += block * s_act * s_weight. EVEN: the odd columns hold no pair, so
// their sums are not promoted.
template <int NT, bool NO_C, bool EVEN>
__device__ __forceinline__ void fp4_block(float (&acc)[NT][4], uint32_t wg, uint32_t wg8, float sw_g, float sw_g8,
                                          int j, const uint2 (&b)[NT][4], const float (&sa)[NT][2]) {
  const uint32_t a0 = e2m1_low_nibbles_to_e4m3(wg), a2 = e2m1_high_nibbles_to_e4m3(wg);
  const uint32_t a1 = e2m1_low_nibbles_to_e4m3(wg8), a3 = e2m1_high_nibbles_to_e4m3(wg8);
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    if constexpr (NO_C) {
      mma_e4m3_16x8x32_no_c(d, a0, a1, a2, a3, b[nt][j].x, b[nt][j].y);
    } else {
      mma_e4m3_16x8x32(d, a0, a1, a2, a3, b[nt][j].x, b[nt][j].y);
    }
#pragma unroll
    for (int jj = 0; jj < 4; ++jj)
      if (!EVEN || (jj & 1) == 0) acc[nt][jj] = fmaf(d[jj] * sa[nt][jj & 1], jj < 2 ? sw_g : sw_g8, acc[nt][jj]);
  }
}

// The bf16 epilogue of one output: SwiGLU x routing weight (gate/up) or the plain sum (down). The clamp keeps NaN
// (comparisons, not fminf, which would turn a NaN gate into the limit).
__device__ __forceinline__ uint16_t epilogue(const PassArgs& a, bool two, float g, float u, int32_t pair) {
  if (!two) return float_to_bf16_bits(g);
  float gate = bf16_bits_to_float(float_to_bf16_bits(g));
  float up = bf16_bits_to_float(float_to_bf16_bits(u));
  if (a.limit > 0) {
    gate = gate > a.limit ? a.limit : gate;
    up = up > a.limit ? a.limit : (up < -a.limit ? -a.limit : up);
  }
  return float_to_bf16_bits(gate / (1.0f + expf(-gate)) * up * a.weights[pair]);
}

// The list entry of a pass's column; none from end on (EVEN: the pass's four pairs sit in the even columns).
template <bool EVEN>
__device__ __forceinline__ int32_t column_entry(int32_t end, int32_t pbase, int column) {
  if constexpr (EVEN) return (column & 1) ? end : pbase + column / 2;
  return pbase + column;
}

// Calls f(nt, jj, pair, feature) for each of this lane's sums whose pass column holds a pair: the pair's output
// feature (row g or g + 8 of the tile) in that column.
template <int NT, bool EVEN, typename F>
__device__ __forceinline__ void for_each_output(const PassArgs& a, int32_t end, int32_t pbase, int64_t tile, int g,
                                                int t, F&& f) {
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
    for (int jj = 0; jj < 4; ++jj) {
      const int32_t q = column_entry<EVEN>(end, pbase, nt * 8 + 2 * t + (jj & 1));
      if (q >= end) continue;
      f(nt, jj, a.ws.list[q], tile * 16 + (jj < 2 ? g : g + 8));
    }
  }
}

// The two warps of a K-split pair (warps 2p and 2p + 1 of a block) wait for each other at barrier 1 + p (named
// with constants, so ptxas reserves two barriers, not all sixteen).
__device__ __forceinline__ void split_pair_barrier(int p) {
  if (p == 0) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
  } else {
    asm volatile("bar.sync 2, 64;" ::: "memory");
  }
}
static_assert(kWarpsPerBlock == 4, "split_pair_barrier names one barrier for each of a block's two warp pairs");

// One warp: one (active expert, 16-feature tile, K split), all of the expert's pairs in passes of NT * 8.
// TWO: gate/up (w1 and w3, then SwiGLU); otherwise down. With two splits (gate/up at hidden 4096) the two warps
// of a tile are neighbours in one block: after each pass split 1 hands its sums to split 0 through shared memory
// and split 0 adds them (split 0 + split 1, the tail's order) and writes the outputs. The global tail (fences,
// arrival atomic, the last warp's re-read of the partials) held 13% of the gate/up pass's stall samples at one row
// (ncu, session 12 call 5). With other split counts, the last warp of a (expert, tile) to finish sums the partials
// in ascending split order.
template <int NT, bool TWO, bool NO_C, bool EVEN>
__device__ __forceinline__ void expert_passes(const PassArgs& a, int64_t tile, int64_t split, int32_t begin,
                                              int32_t end, int32_t expert) {
  const int splits = int(a.splits);
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const int64_t supers = a.k / 128, per_split = supers / a.splits;
  const int64_t sb0 = split * per_split, sb1 = sb0 + per_split;
  const int lane_at = fp4_lane_byte(lane, 0, a.coalesced), second = fp4_lane_byte(lane, 16, a.coalesced) - lane_at;
  const uint8_t* c1 = a.codes[expert] + tile * supers * 1024 + lane_at;
  const uint8_t* s1 = a.scales[expert] + tile * supers * 64;
  const uint8_t* c3 = TWO ? a.codes3[expert] + tile * supers * 1024 + lane_at : nullptr;
  const uint8_t* s3 = TWO ? a.scales3[expert] + tile * supers * 64 : nullptr;
  const int64_t pairs = a.ws.offsets[*a.ws.n_active];
  // splits == 2: a tile's two warps are numbered 2i and 2i + 1, so both sit in one block (kWarpsPerBlock is even)
  const bool pair_sum = splits == 2;
  __shared__ float handed[kWarpsPerBlock / 2][TWO ? 2 : 1][NT][4][32];

  for (int32_t pbase = begin; pbase < end; pbase += EVEN ? 4 : NT * 8) {
    int64_t brow[NT], crow[NT][2];  // input rows of this lane's B fragment and of its accumulator columns
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      const int32_t q = a.control == control_first_row ? pbase : column_entry<EVEN>(end, pbase, nt * 8 + g);
      const int32_t p = q < end ? a.ws.list[q] : -1;
      brow[nt] = p < 0 ? -1 : a.by_row ? p / a.top_k : p;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int32_t qc = column_entry<EVEN>(end, pbase, nt * 8 + 2 * t + c);
        const int32_t pc = qc < end ? a.ws.list[qc] : -1;
        crow[nt][c] = pc < 0 ? -1 : a.by_row ? pc / a.top_k : pc;
      }
    }
    float acc1[NT][4], acc3[NT][4];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) acc1[nt][jj] = acc3[nt][jj] = 0.f;

    // Everything a super-block needs (weights, scales, activation fragments) is loaded one step ahead, into two
    // step buffers used in turn (the loop runs two super-blocks a turn, so nothing is copied between them). The
    // activation rows' addresses are worked out once a pass, in 32-bit offsets from there on.
    const uint8_t* xrow[NT];
    const float* srow[NT][2];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      xrow[nt] = brow[nt] < 0 ? nullptr : a.xq + brow[nt] * a.k + t * 8;
#pragma unroll
      for (int c = 0; c < 2; ++c) srow[nt][c] = crow[nt][c] < 0 ? nullptr : a.xs + crow[nt][c] * supers;
    }
    struct Step {
      uint4 w1a, w1b, w3a, w3b;
      uint32_t s1g, s1g8, s3g, s3g8;
      uint2 b[NT][4];
      float sa[NT][2];
    };
    auto load_step = [&](int sb, Step& st) {
      const int code = sb * 1024, scale = sb * 64;
      st.w1a = load_stream_16(c1 + code), st.w1b = load_stream_16(c1 + code + second);
      st.s1g = *reinterpret_cast<const uint32_t*>(s1 + scale + g * 4);
      st.s1g8 = *reinterpret_cast<const uint32_t*>(s1 + scale + (g + 8) * 4);
      if (TWO) {
        st.w3a = load_stream_16(c3 + code), st.w3b = load_stream_16(c3 + code + second);
        st.s3g = *reinterpret_cast<const uint32_t*>(s3 + scale + g * 4);
        st.s3g8 = *reinterpret_cast<const uint32_t*>(s3 + scale + (g + 8) * 4);
      }
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          st.b[nt][j] = xrow[nt] ? *reinterpret_cast<const uint2*>(xrow[nt] + sb * 128 + j * 32) : make_uint2(0, 0);
#pragma unroll
        for (int c = 0; c < 2; ++c) st.sa[nt][c] = srow[nt][c] ? srow[nt][c][sb] * kFp4Unscale : 0.0f;
      }
    };
    auto run_step = [&](const Step& st) {
      const BlockScales sw1 = block_scales(st.s1g, st.s1g8, a.control);
      BlockScales sw3{};
      if (TWO) sw3 = block_scales(st.s3g, st.s3g8, a.control);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        fp4_block<NT, NO_C, EVEN>(acc1, word_of(st.w1a, st.w1b, 2 * j), word_of(st.w1a, st.w1b, 2 * j + 1), sw1.g[j],
                                  sw1.g8[j], j, st.b, st.sa);
        if (TWO)
          fp4_block<NT, NO_C, EVEN>(acc3, word_of(st.w3a, st.w3b, 2 * j), word_of(st.w3a, st.w3b, 2 * j + 1), sw3.g[j],
                                    sw3.g8[j], j, st.b, st.sa);
      }
    };
    Step even{}, odd{};
    const int first = int(sb0), last = int(sb1);
    load_step(first, even);
    for (int sb = first; sb < last; sb += 2) {
      if (sb + 1 < last) load_step(sb + 1, odd);
      run_step(even);
      if (sb + 1 == last) break;
      if (sb + 2 < last) load_step(sb + 2, even);
      run_step(odd);
    }
    if (pair_sum) {
      const int pair_in_block = numbered_warp(int(threadIdx.x / 32), a.pairs_apart) / 2;  // here: fewer live registers
      float(&mine)[TWO ? 2 : 1][NT][4][32] = handed[pair_in_block];
      if (split == 1) {
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
          for (int jj = 0; jj < 4; ++jj) {
            if (EVEN && (jj & 1)) continue;
            mine[0][nt][jj][lane] = acc1[nt][jj];
            if (TWO) mine[TWO ? 1 : 0][nt][jj][lane] = acc3[nt][jj];
          }
      }
      split_pair_barrier(pair_in_block);
      if (split == 0) {
        for_each_output<NT, EVEN>(a, end, pbase, tile, g, t, [&](int nt, int jj, int32_t pair, int64_t feature) {
          const float g1 = acc1[nt][jj] + mine[0][nt][jj][lane];
          const float g3 = TWO ? acc3[nt][jj] + mine[TWO ? 1 : 0][nt][jj][lane] : 0.0f;
          a.out[int64_t(pair) * a.out_features + feature] = epilogue(a, TWO, g1, g3, pair);
        });
      }
      split_pair_barrier(pair_in_block);  // split 0 has read the sums before the next pass's overwrite them
      continue;
    }
    for_each_output<NT, EVEN>(a, end, pbase, tile, g, t, [&](int nt, int jj, int32_t pair, int64_t feature) {
      if (a.splits == 1) {
        a.out[int64_t(pair) * a.out_features + feature] = epilogue(a, TWO, acc1[nt][jj], acc3[nt][jj], pair);
      } else {
        const int64_t at = (split * pairs + pair) * a.out_features + feature;
        a.ws.partial[at] = acc1[nt][jj];
        if (TWO) a.ws.partial[(a.splits + split) * pairs * a.out_features + (at - split * pairs * a.out_features)] = acc3[nt][jj];
      }
    });
  }
  if (a.splits == 1 || pair_sum) return;
  __threadfence();
  __syncwarp();
  unsigned arrived = 0;
  unsigned* counter = &a.ws.arrivals[expert * a.tiles + tile];
  if (lane == 0) arrived = atomicAdd(counter, 1u);
  arrived = __shfl_sync(0xffffffffu, arrived, 0);
  if (arrived != unsigned(a.splits - 1)) return;
  __threadfence();
  for (int64_t i = begin * 16 + lane; i < int64_t(end) * 16; i += 32) {
    const int32_t pair = a.ws.list[i / 16];
    const int64_t feature = tile * 16 + i % 16;
    const int64_t at = int64_t(pair) * a.out_features + feature;
    float g1 = __ldcg(&a.ws.partial[at]), g3 = 0.0f;
    if (TWO) g3 = __ldcg(&a.ws.partial[a.splits * pairs * a.out_features + at]);
    for (int64_t s = 1; s < a.splits; ++s) {
      g1 += __ldcg(&a.ws.partial[s * pairs * a.out_features + at]);
      if (TWO) g3 += __ldcg(&a.ws.partial[(a.splits + s) * pairs * a.out_features + at]);
    }
    a.out[at] = epilogue(a, TWO, g1, g3, pair);
  }
  if (lane == 0) *counter = 0u;
}

// The 8-row variant is held to 128 registers (four 128-thread blocks per SM instead of three for gate/up at 163;
// ptxas spills a few dozen bytes): 16 rows routed apart 824 -> 752 us, one row unchanged (H200).
// EVEN (8-row passes of launches with at most four rows): a pass takes four pairs, in the MMA's even columns, so
// each lane promotes two sums a block, not four. A column's sums do not depend on the other columns, so the bits
// are the same.
// MIN_BLOCKS: the blocks a multiprocessor must hold (the register budget). The 16-row variant at 3 (168 registers):
// 12 warps a multiprocessor, so 16 rows on the same six experts (1536 warps a pass) run in one wave, where at up to
// 254 registers two blocks fit and the pass took 1.45 waves.
// ADAPT (8-row passes of launches with five rows or more): a warp whose expert has at most four pairs runs the
// EVEN body, the others the plain one. Rows routed apart leave most experts one or two pairs.
// One warp's work item (active slot, tile, split), numbered in that order; false once the slots have run out (every
// later item's slot is out too).
template <int NT, bool TWO, bool NO_C, bool EVEN, bool ADAPT>
__device__ __forceinline__ bool serve_item(const PassArgs& a, int item, int n_active) {
  const int tiles = int(a.tiles), splits = int(a.splits);  // 32-bit: no 64-bit divisions
  const int64_t tile = (item / splits) % tiles;
  const int64_t split = item % splits;
  int64_t slot = item / (tiles * splits);
  if (slot >= n_active) return false;
  if (a.experts_taken == take_large) slot = nth_large_slot(a.ws.offsets, n_active, int(slot));
  if (slot < 0) return false;
  const int32_t begin = a.ws.offsets[slot], end = a.ws.offsets[slot + 1];
  if (a.experts_taken == take_small && end - begin > kSmallExpertPairs) return true;
  const int32_t expert = a.ws.active[slot];
  if constexpr (ADAPT) {
    if (end - begin <= kFewExpertPairs) {
      expert_passes<NT, TWO, NO_C, true>(a, tile, split, begin, end, expert);
      return true;
    }
  }
  expert_passes<NT, TWO, NO_C, EVEN>(a, tile, split, begin, end, expert);
  return true;
}

// A capped grid's next unit after its first turn (units 0 .. grid_units - 1): the launch counter's next value past
// them. A unit of two items (a K-split pair) is fetched by the pair's split-0 warp and handed to its neighbour through
// shared memory, a slot for each turn's parity (the neighbour reads turn t's before the fetcher can reach turn t + 2's
// barrier).
__device__ __forceinline__ int fetch_unit(unsigned* counter, int grid_units, int per_unit, int sub, bool pairs_apart,
                                          int turn) {
  __shared__ int handed_unit[kWarpsPerBlock / 2][2];
  // From threadIdx here, not kept across the item loop (a register fewer there: ptxas spilled 36 bytes more).
  const int lane = int(threadIdx.x % 32), pair = numbered_warp(int(threadIdx.x / 32), pairs_apart) / 2;
  int unit = 0;
  if (sub == 0 && lane == 0) unit = grid_units + int(atomicAdd(counter, 1u));
  unit = __shfl_sync(0xffffffffu, unit, 0);
  if (per_unit == 1) return unit;
  if (sub == 0 && lane == 0) handed_unit[pair][turn & 1] = unit;
  split_pair_barrier(pair);
  return handed_unit[pair][turn & 1];
}

// LOOP (PLUMB_EXPERTS_ITEM_LOOP): the warp serves items until the slots run out: w, w + W, ... (W the grid's warps)
// or, in a capped grid (PLUMB_EXPERTS_DYNAMIC), its own then those the launch's counter hands out. With a warp for
// every item each warp serves one, and what the loop changes is the code ptxas sees (the adaptive
// gate/up kernel's spills 128/324 -> 44/120 bytes; session 26 call 3, with the loop in every pass kernel: the classes
// that run the adaptive kernel 5% faster: 16 rows routed apart 458.9 -> 434.1 us, 8 rows on the same 6 57.6 -> 54.7).
// A capped grid whose warps took items in fixed turns (w, w + W, ...) lost there: 16 rows on the same 6 77.9 -> 64.3
// us, but routed apart 434.1 -> 470.6 and the round +3.2% at 16 rows (data/2026-12-02-session26/lost/
// experts-persistent.patch); with the counter instead (session 27) routed apart stayed even.
template <int NT, bool TWO, bool NO_C, bool EVEN, int MIN_BLOCKS, bool ADAPT = false, bool LOOP = false>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, MIN_BLOCKS) experts_pass_kernel(PassArgs a) {
  static_assert(!EVEN || NT == 1, "even columns are an 8-row pass's");
  static_assert(!ADAPT || (NT == 1 && !EVEN), "an adaptive pass is a plain 8-row pass's");
  kernel_prologue();
  const int warp = numbered_warp(int(threadIdx.x) / 32, a.pairs_apart);
  const int n_active = *a.ws.n_active, first = int(blockIdx.x) * kWarpsPerBlock + warp;
  if constexpr (LOOP) {
    // Items go in units (experts_units.h). The first turn takes the warp's own unit, numbered across the blocks in a
    // capped grid with the spread on; then a unit the grid's width on, or the counter's next.
    const int per_unit = items_per_unit(a.splits), sub = first % per_unit;
    const int grid_units = int(gridDim.x) * kWarpsPerBlock / per_unit;
    int unit = first_turn_unit(int(blockIdx.x), warp, int(gridDim.x), kWarpsPerBlock, per_unit,
                               a.fetched && a.spread, a.from_end);
    for (int turn = 0; serve_item<NT, TWO, NO_C, EVEN, ADAPT>(a, unit * per_unit + sub, n_active); ++turn)
      unit = a.fetched ? fetch_unit(a.fetched, grid_units, per_unit, sub, a.pairs_apart, turn) : unit + grid_units;
  } else {
    serve_item<NT, TWO, NO_C, EVEN, ADAPT>(a, first, n_active);
  }
}

}  // namespace
}  // namespace plumb::cuda
