// The routed FP4 experts on CUDA, host side: the workspace, the planted controls, and which pass kernel
// (fp4_experts_pass.cuh) each launch takes, by rows and by the experts' pair counts.
#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "base/env_switch.h"
#include "kernels/control.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device.h"
#include "kernels/cuda/fp4_experts.h"
#include "kernels/cuda/fp4_experts_glue.h"
#include "kernels/cuda/fp4_experts_pass.cuh"
#include "kernels/cuda/fp8_linear.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/zero.h"

namespace plumb::cuda {
using namespace experts_detail;
namespace {

// K values per split: 16 super-blocks a warp. One row's passes are then 1536 warps each, one wave at four 128-thread
// blocks a multiprocessor, and the down pass has one split (no partials); at 1024 they were 1.45 waves. H200 (session
// 10 call 4): experts at one row 53.3 -> 45.9 us, 16 rows on the same 6 experts 116 -> 104, routed apart 590 -> 484.
// The down pass in two splits of 1024 (its pair summed in the block, six blocks a multiprocessor so one row's 3072
// warps fit one wave) lost in session 25: the one-row down pass 16.6 -> 16.5 us under ncu at 29% occupancy against
// 17%, 16 rows on the same 6 76.4 -> 86.5. More warps in flight do not speed the one-row passes; the ALU pipe is
// their busiest (56% gate/up, 50% down; DRAM 34-50%), so what may pay there is fewer integer instructions a weight.
constexpr int64_t kSplitK = 2048;

const kernels::ControlId kFirstRow = kernels::register_control(
    "fp4_experts_cuda", "rows_read_pass_first_row", "every row of an expert pass reads the pass's first row");
const kernels::ControlId kScalePer64 = kernels::register_control(
    "fp4_experts_cuda", "scale_per_64", "weight scales applied per 64 instead of per 32 along K");
const kernels::ControlId kNoClamp =
    kernels::register_control("fp4_experts_cuda", "no_clamp", "the SwiGLU clamp of gate and up is left out");
const kernels::ControlId kSkipShared =
    kernels::register_control("fp4_experts_cuda", "skip_shared", "the shared expert's output is not added");
const kernels::ControlId kAddendSkipped = kernels::register_control(
    "fp4_experts_add_cuda", "addend_skipped", "routed_experts_add leaves the addend out (the routed sum alone)");

size_t align256(size_t b) { return (b + 255) / 256 * 256; }
int64_t splits_for(int64_t k) { return std::max<int64_t>(1, k / kSplitK); }

size_t arrival_count(const Fp4ExpertsView& w) { return size_t(w.experts * std::max(w.inter, w.hidden) / 16); }

size_t partial_floats(const Fp4ExpertsView& w, int64_t pairs) {
  return std::max(size_t(2 * splits_for(w.hidden) * pairs * w.inter), size_t(splits_for(w.inter) * pairs * w.hidden));
}

Workspace carve(void* base, const Fp4ExpertsView& w, int64_t rows, int64_t pairs) {
  auto* p = static_cast<uint8_t*>(base);
  auto take = [&](size_t bytes) {
    uint8_t* q = p;
    p += align256(bytes);
    return q;
  };
  Workspace ws{};
  ws.arrivals = reinterpret_cast<unsigned*>(take(arrival_count(w) * 4));
  ws.fetched = reinterpret_cast<unsigned*>(take(kFetchCounters * 4));
  ws.counts = reinterpret_cast<int32_t*>(take(size_t(w.experts) * 4));
  ws.offsets = reinterpret_cast<int32_t*>(take(size_t(w.experts + 1) * 4));
  ws.active = reinterpret_cast<int32_t*>(take(size_t(w.experts) * 4));
  ws.n_active = reinterpret_cast<int32_t*>(take(4));
  ws.list = reinterpret_cast<int32_t*>(take(size_t(pairs) * 4));
  ws.partial = reinterpret_cast<float*>(take(partial_floats(w, pairs) * 4));
  ws.xq = take(size_t(rows * w.hidden));
  ws.xs = reinterpret_cast<float*>(take(size_t(rows * (w.hidden / 128)) * 4));
  ws.h = reinterpret_cast<uint16_t*>(take(size_t(pairs * w.inter) * 2));
  ws.hq = take(size_t(pairs * w.inter));
  ws.hs = reinterpret_cast<float*>(take(size_t(pairs * (w.inter / 128)) * 4));
  ws.o = reinterpret_cast<uint16_t*>(take(size_t(pairs * w.hidden) * 2));
  return ws;
}

// PLUMB_EXPERTS_NO_C=0 runs the gate/up pass's MMAs through the compiler's emulation with its add of a zero C (an
// A/B switch; same bits).
bool no_c_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_NO_C");
  return on;
}

// PLUMB_EXPERTS_NT2_BOUND=0 lets the 16-row passes take up to 255 registers, two blocks a multiprocessor (an A/B
// switch; same bits).
bool nt2_bound_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_NT2_BOUND");
  return on;
}

// Which pass kernels are built with the item loop around their warp's items (experts_pass_kernel's LOOP; same items,
// same bits): PLUMB_EXPERTS_ITEM_LOOP=0 none, 1 (unset) the adaptive ones, whose spills it cuts, 2 all (ptxas: the
// plain 8-row gate/up's spills 24/56 -> 48/112 bytes, the 16-row one's 36/100 -> 44/112). 1 against 0 (H200, session
// 27 call 1, 11 alternations of the round): 16 rows -2.49% (8 of 11, p 0.23), one row -0.21%, 4 slots +0.52% (p 0.065).
int item_loop_mode() {
  static const int mode = env_int("PLUMB_EXPERTS_ITEM_LOOP", 1);
  return mode;
}
bool looped(bool adapt) { return item_loop_mode() == 2 || (item_loop_mode() == 1 && adapt); }

template <int NT, bool TWO, bool NO_C, bool EVEN, int MIN_BLOCKS, bool ADAPT>
auto pass_kernel_looped() {
  return looped(ADAPT) ? experts_pass_kernel<NT, TWO, NO_C, EVEN, MIN_BLOCKS, ADAPT, true>
                       : experts_pass_kernel<NT, TWO, NO_C, EVEN, MIN_BLOCKS, ADAPT, false>;
}

// The gate/up pass without the zero C's adds; the down pass keeps the emulation (session 12's experts-f16 wrote
// both passes' MMAs out and lost 1.1 us in the down pass).
template <int NT, bool TWO, bool EVEN, int MIN_BLOCKS, bool ADAPT = false>
auto pass_kernel_bounded() {
  if constexpr (TWO) {
    if (no_c_enabled()) return pass_kernel_looped<NT, TWO, true, EVEN, MIN_BLOCKS, ADAPT>();
  }
  return pass_kernel_looped<NT, TWO, false, EVEN, MIN_BLOCKS, ADAPT>();
}

template <int NT, bool TWO, bool EVEN = false, bool ADAPT = false>
auto pass_kernel() {
  if constexpr (NT == 1) {
    return pass_kernel_bounded<NT, TWO, EVEN, 4, ADAPT>();
  } else if constexpr (NT == 2) {
    return nt2_bound_enabled() ? pass_kernel_bounded<NT, TWO, EVEN, 3>() : pass_kernel_bounded<NT, TWO, EVEN, 1>();
  } else {
    return pass_kernel_bounded<NT, TWO, EVEN, 1>();
  }
}

// PLUMB_EXPERTS_EVEN=0 keeps eight pairs a pass at one to four rows (an A/B switch; same bits).
bool even_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_EVEN");
  return on;
}

// PLUMB_EXPERTS_ADAPT=0 keeps plain 8-row passes for every expert of a launch of 5 rows or more (an A/B switch;
// same bits). Session 22 call 4 (H200): 16 rows routed apart 463 -> 441 us, 8 rows routed apart 242 -> 228, on the
// same 6 unchanged; the round at 16 rows -2.4% (19 of 20). Launches of their own for the experts with at most 4
// pairs (tiers) lost 10 us at 8 rows on the same 6 (their grid exits at once).
bool adapt_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_ADAPT");
  return on;
}

// even: 8-row passes of a launch with at most four rows (an expert's pairs are then at most four, but the kernel
// loops over passes of four either way). adapt: 8-row passes that take the even columns for an expert with at most
// four pairs (one kernel holding both bodies, no launch a size of expert).
// PLUMB_EXPERTS_DYNAMIC=0 gives a looped pass kernel a warp for every item, as the others have (an A/B switch; same
// bits). On, a looped kernel's grid is capped at the blocks the GPU holds at once, and its warps take further items
// from the launch's counter as they finish: the host sizes a pass for every expert the rows could reach, so with rows
// on few experts most blocks of a full grid only read the counts and exit (16 rows on the same 6 experts: 6144 blocks
// for 384, about 13.6 us of 77; session 26 call 3). Items dealt in fixed turns instead lost 8% routed apart. The
// counter (H200, session 27 call 1, against its switch): 16 rows on the same 6 77.5 -> 65.8 us, routed apart 442.4 ->
// 437.8; the round even (11 alternations: one row +0.43%, p 0.55; 16 rows -0.96%, p 0.23).
bool dynamic_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_DYNAMIC");
  return on;
}

// The blocks of `kernel` the multiprocessors hold at once (once a kernel).
unsigned resident_blocks(const void* kernel) {
  static std::mutex mutex;
  static std::unordered_map<const void*, unsigned> known;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(kernel);
  if (it != known.end()) return it->second;
  int per_sm = 0;
  PLUMB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarpsPerBlock * 32, 0));
  return known[kernel] = unsigned(std::max(1, multiprocessor_count() * per_sm));
}

// PLUMB_EXPERTS_SPREAD=0 numbers a capped grid's first-turn units block by block (an A/B switch; same bits). On, unit
// u goes to block u % blocks: the active units, the lowest, then reach every multiprocessor. Block by block, a grid
// wider than a wave whose later blocks find no expert leaves some multiprocessors twice the work of others (H200,
// session 27, ncu of 2 rows on the same 6 experts: 768 blocks, each pass 20% longer than one row's 384 with the same
// instructions and DRAM sectors; per multiprocessor 52-101 K instructions in gate/up, 31-59 K in down). Spread, in a
// capped grid: 8 rows on the same 6 56.4 -> 52.7 us (the adaptive kernel), the other classes even, the round even
// (11 alternations, every cell p 1.0). With every kernel looped (PLUMB_EXPERTS_ITEM_LOOP=2) the 2-row down pass
// evened out (43-47 K, 17.5 -> 15.8 us), but gate/up, whose K-split pairs leave a block one unit or two, did not.
bool spread_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_SPREAD");
  return on;
}

// PLUMB_EXPERTS_DEAL_FROM_END=0 deals a capped grid's first turn from block 0 on (an A/B switch; same bits). On, unit
// u goes to block blocks - 1 - u % blocks: where a launch's units do not fill the first turn, the blocks with one unit
// more are the grid's last, which the block scheduler spreads about one a multiprocessor, where its first 132 blocks
// double up on some (session 29 call 4's maps of a 528-block grid: blocks 0-131 on 116-124 multiprocessors, 132-263
// on all 132). For 2 rows on the same 6 experts (768 gate/up units of two warps) the busiest multiprocessor then has
// 12 busy warps, not 16 (the host test reads the maps); session 29 call 3 ran that load at 12 a multiprocessor (a grid
// of 396 blocks) in 24.9 us against 29.6. Rows routed apart fill the first turn, so the deal does not touch them.
// Alone it evened the multiprocessors (busiest 106 K -> 80 K instructions) but not the schedulers, and lost (session
// 30 call 1); with PLUMB_EXPERTS_PAIRS_APART it pays (session 31 call 1; session 32 call 2 for the merged form).
bool deal_from_end_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_DEAL_FROM_END");
  return on;
}

// PLUMB_EXPERTS_PAIRS_APART=0 keeps a K-split pair on neighbouring warps 2i and 2i + 1 (an A/B switch; same bits).
// On, a pair is warps i and i + 2. Session 30 call 2: at 2 rows on the same 6 the gate/up pass's busiest scheduler
// ran 26.8 K instructions against 19.7 K on average (1.36x) however the first turn was dealt, where a 396-block grid
// (every slot busy) runs the pass in 24.9 us against 29.6; its probe put a block's warp w on scheduler (w + r) % 4,
// r the block's place on its multiprocessor. On call 4's recorded maps, dealt from the end, neighbouring pairs leave
// some scheduler 4 busy warps, pairs apart 3 (the host test). Session 31 call 1 (H200): the 2-row gate/up pass 29.95 ->
// 25.12 us, its busiest scheduler 26.6 K -> 20.2 K instructions; the same 6 at 2, 4 and 8 rows 48.7 -> 43.6, 49.3 ->
// 44.0 and 53.1 -> 47.7 us; one row, 16 rows and rows routed apart as before. Call 4: with the even-columns kernels
// of 2-4 rows looped (needed for a capped grid there) the round ran +1.37% at 4 rows (p 0.011), so those stay
// unlooped. The pairs are apart in every launch, but they and the deal move only the capped grids: the adaptive 8-row
// kernels (5-8 rows, and the 8-row launch at 9-16 rows). Session 32 call 2: the same 6 at 8 rows 52.9 -> 47.7 us, the
// rest as before (2-4 rows 48.7 / 48.9 us both ways), the round even in 20 alternations (1 row -0.11%, 4 rows
// +0.13%, 16 rows +0.32%, 4 slots +0.09%; p >= 0.82).
bool pairs_apart_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_PAIRS_APART");
  return on;
}

// A pass launch of `items` warp items; `counter` (ws.fetched + i) serves it if its kernel loops and its grid is capped.
template <typename Kernel>
void launch_items(Stream s, Kernel kernel, bool loops, int64_t items, PassArgs a, unsigned* counter) {
  unsigned blocks = unsigned((items + kWarpsPerBlock - 1) / kWarpsPerBlock);
  a.fetched = nullptr, a.from_end = false;
  if (loops && dynamic_enabled()) {
    // PLUMB_EXPERTS_GRID_CAP=N caps at N blocks instead, so that small test shapes take the counter too.
    static const int forced = env_int("PLUMB_EXPERTS_GRID_CAP", 0);
    const unsigned cap = forced > 0 ? unsigned(forced) : resident_blocks(reinterpret_cast<const void*>(kernel));
    if (blocks > cap)
      blocks = cap, a.fetched = counter, a.spread = spread_enabled(), a.from_end = a.spread && deal_from_end_enabled();
  }
  a.pairs_apart = pairs_apart_enabled();
  launch(s, "experts_pass", kernel, dim3(blocks), dim3(kWarpsPerBlock * 32), 0, a);
}

template <bool TWO>
void launch_pass(const PassArgs& a, int64_t max_active, int rows_per_pass, Stream s, unsigned* counter,
                 bool even = false, bool adapt = false) {
  const int64_t items = max_active * a.tiles * a.splits;
  if (even && rows_per_pass == 8) return launch_items(s, pass_kernel<1, TWO, true>(), looped(false), items, a, counter);
  if (adapt && rows_per_pass == 8)
    return launch_items(s, pass_kernel<1, TWO, false, true>(), looped(true), items, a, counter);
  switch (rows_per_pass) {
    case 8: launch_items(s, pass_kernel<1, TWO>(), looped(false), items, a, counter); break;
    case 16: launch_items(s, pass_kernel<2, TWO>(), looped(false), items, a, counter); break;
    case 32: launch_items(s, pass_kernel<4, TWO>(), looped(false), items, a, counter); break;
    default: fail("fp4_experts: rows_per_pass must be 8, 16 or 32, got {}", rows_per_pass);
  }
}

// A pass at 9 rows or more: experts with up to 8 pairs in 8-row passes, then those with more in 16-row passes (at
// most pairs / 9 of them, so the second grid is small).
template <bool TWO>
void launch_pass_by_size(PassArgs a, int64_t max_active, int64_t pairs, Stream s, bool adapt) {
  unsigned* counters = a.ws.fetched + (TWO ? 0 : 2);
  a.experts_taken = take_small;
  launch_pass<TWO>(a, max_active, 8, s, counters, false, adapt);
  a.experts_taken = take_large;
  launch_pass<TWO>(a, std::min(max_active, pairs / (kSmallExpertPairs + 1)), 16, s, counters + 1);
}

// PLUMB_EXPERTS_BY_SIZE=0 keeps one launch of a pass size for every expert (an A/B switch; same bits).
bool by_size_enabled() {
  static const bool on = env_switch_on("PLUMB_EXPERTS_BY_SIZE");
  return on;
}

}  // namespace

size_t fp4_experts_workspace_bytes(const Fp4ExpertsView& w, int64_t rows, int32_t top_k) {
  const int64_t pairs = rows * top_k;
  return align256(arrival_count(w) * 4) + align256(kFetchCounters * 4) + 3 * align256(size_t(w.experts + 1) * 4) +
         align256(4) + align256(size_t(pairs) * 4) + align256(partial_floats(w, pairs) * 4) +
         align256(size_t(rows * w.hidden)) + align256(size_t(rows * (w.hidden / 128)) * 4) +
         align256(size_t(pairs * w.inter) * 2) + align256(size_t(pairs * w.inter)) +
         align256(size_t(pairs * (w.inter / 128)) * 4) + align256(size_t(pairs * w.hidden) * 2);
}

void fp4_experts_workspace_init(void* workspace, const Fp4ExpertsView& w, Stream stream) {
  zero_async(stream, workspace, arrival_count(w) * 4);
}

void fp4_experts(const Fp4ExpertsView& w, const ExpertsIo& io, int64_t rows, const ExpertRoutingView& routing,
                 void* workspace, int rows_per_pass, Stream stream) {
  if (rows == 0) return;
  PLUMB_CHECK(routing.top_k >= 1 && routing.top_k <= kMaxTopK && w.experts <= kListThreads);
  PLUMB_CHECK(w.hidden % 128 == 0 && w.inter % 128 == 0);
  const int64_t pairs = rows * routing.top_k;
  const Workspace ws = carve(workspace, w, rows, pairs);
  // Unless the caller fixes the pass size: one launch of 8-row passes up to 8 rows, and from 9 rows on the experts
  // split by their pair count (launch_pass_by_size). Passes of 16 for every expert lost at 16 rows routed apart
  // (474 -> 746 us) and passes of 8 for every expert at 16 rows on the same 6 (80 -> 97 us; H200, session 13 call 1).
  // Split: 90 us on the same 6, 468 routed apart (call 2); the 8-row launch's grid, sized for every expert and
  // exiting at once on the same 6, still costs what passes of 16 for all did not.
  const bool even = rows <= 4 && even_enabled();
  const bool by_size = rows_per_pass == 0 && rows > 8 && by_size_enabled();
  const bool adapt = rows_per_pass == 0 && !even && even_enabled() && adapt_enabled();
  if (rows_per_pass == 0) rows_per_pass = rows <= 16 ? 8 : 16;
  const int64_t max_active = std::min<int64_t>(w.experts, pairs);
  const int control = kernels::planted(kFirstRow)     ? control_first_row
                      : kernels::planted(kScalePer64) ? control_scale_per_64
                                                      : control_none;
  const float limit = kernels::planted(kNoClamp) ? 0.0f : w.swiglu_limit;
  const uint16_t* shared = kernels::planted(kSkipShared) ? nullptr : io.shared;

  PLUMB_CHECK(io.x_f32 || io.x_stride == 0 || io.x_stride == w.hidden);
  PLUMB_CHECK(!io.addend || io.y_f32);
  const ExpertsInput in{io.x, io.x_f32, io.x_stride ? io.x_stride : w.hidden, rows, w.hidden};
  const int64_t quant_blocks = (rows * (w.hidden / 128) + kListThreads / 32 - 1) / (kListThreads / 32);
  launch_prepare_experts(routing.ids, pairs, int(w.experts), ws, in, quant_blocks, stream);

  PassArgs up{};
  up.ws = ws;
  up.codes = w.w1_codes;
  up.scales = w.w1_scales;
  up.codes3 = w.w3_codes;
  up.scales3 = w.w3_scales;
  up.out_features = w.inter;
  up.k = w.hidden;
  up.tiles = w.inter / 16;
  up.splits = splits_for(w.hidden);
  up.xq = ws.xq;
  up.xs = ws.xs;
  up.top_k = routing.top_k;
  up.by_row = true;
  up.weights = routing.weights;
  up.limit = limit;
  up.out = ws.h;
  up.control = control;
  up.coalesced = fp4_coalesced_layout();
  if (by_size) {
    launch_pass_by_size<true>(up, max_active, pairs, stream, adapt);
  } else {
    launch_pass<true>(up, max_active, rows_per_pass, stream, ws.fetched, even, adapt);
  }
  act_quant_e4m3(ws.h, pairs, w.inter, ws.hq, ws.hs, stream);

  PassArgs down = up;
  down.codes = w.w2_codes;
  down.scales = w.w2_scales;
  down.codes3 = nullptr;
  down.scales3 = nullptr;
  down.out_features = w.hidden;
  down.k = w.inter;
  down.tiles = w.hidden / 16;
  down.splits = splits_for(w.inter);
  down.xq = ws.hq;
  down.xs = ws.hs;
  down.by_row = false;
  down.out = ws.o;
  if (by_size) {
    launch_pass_by_size<false>(down, max_active, pairs, stream, adapt);
  } else {
    launch_pass<false>(down, max_active, rows_per_pass, stream, ws.fetched + 2, even, adapt);
  }

  if (io.before_combine) io.before_combine();
  ExpertsIo out = io;
  if (kernels::planted(kAddendSkipped)) out.addend = nullptr;
  launch_combine(ws.o, routing.ids, routing.top_k, shared, rows, w.hidden, out, stream);
}

}  // namespace plumb::cuda
