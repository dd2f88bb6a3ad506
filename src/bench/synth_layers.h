// Synthetic DeepSeek-V4 layers as served (`plumb synth`, ENGINE.md section 7), on any kernels::Backend: one block per
// distinct layer kind of a config (attention by compress ratio x hash-routed or top-k MoE), synthetic weights in the
// release formats, slot state and the model's own Forward::block. Each cell times one block call alone (input
// restored untimed, backend synchronized before and after) for 1 slot x N rows at consecutive positions from
// `context`, or 4 slots x 1 row, with routing as drawn (random gate, distinct tokens) or the same k experts for every
// row (top-k layers: zero gate and a bias picking experts 0..k-1; hash layers: one token for every row). Calls cycle
// over 8 prepared inputs so consecutive calls route differently; the time is the median over the repeats.
//
// Floor bytes of a call: every weight of the block except the routed experts and the hash table (data and scale
// bytes), plus one expert's bytes for each distinct expert buffer the call reads (from an untimed traced run of the
// same input; synthetic expert e reads buffer e mod D). The round cells weigh each kind by its count among the
// config's main layers.
//
// Dispatch classes: the traced calls run through an op timer (kernels/op_timer.h), which synchronizes before and
// after every op; a cell's class times are the mean per call of its dense linears, experts, attention and glue,
// each op alone (their sum exceeds the cell's time by the synchronizations).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/op_timer.h"
#include "model/dsv4/config.h"
#include "model/dsv4/weights.h"

namespace plumb::bench {

// A distinct layer kind of a config and how often it occurs.
struct LayerKind {
  dsv4::BlockSpec spec;     // mtp false: an MTP block's layer is timed as the main layer it equals
  int64_t main_layers = 0;  // the config's main layers of this kind
  int64_t mtp_blocks = 0;   // the config's MTP blocks of this kind
  std::string label() const;  // "window hash", "CSA/4 top-k", "HCA/128 top-k"
};

// In order of first occurrence over the main layers, then the MTP blocks.
std::vector<LayerKind> layer_kinds(const dsv4::Config& config);

// Data and scale bytes of every weight a block call reads, apart from the routed experts and the hash table.
uint64_t block_weight_bytes_without_experts(const dsv4::BlockWeights& block);
uint64_t expert_weight_bytes(const kernels::ExpertWeights& expert);

enum class Routing : uint8_t { as_drawn, same_experts };

struct LayerBenchOptions {
  std::vector<int> rows = {1, 2, 4, 8, 16};  // 1 slot x N rows cells; a 4 slots x 1 row cell is always timed
  int repeats = 20;                          // timed calls per cell
  int64_t context = 4096;                    // tokens already in each slot: the first row's position
  int64_t distinct_experts = 0;              // expert buffers held (D); 0: as many as the config's routed experts
  uint64_t seed = 1;
  double bandwidth = 0;  // copy bandwidth, bytes read + written per second: the floor's denominator
  std::function<void(const std::string&)> say;  // progress lines, when set
};

struct LayerCell {
  size_t kind = 0;  // index into LayerBenchResult::kinds
  int64_t slots = 1, rows_per_slot = 1;
  Routing routing = Routing::as_drawn;
  double seconds = 0;         // median time of one block call
  double host_seconds = 0;    // median time until the host's call returned (launches queued, device maybe busy)
  double bytes = 0;           // floor bytes per call, mean over the prepared inputs
  double expert_buffers = 0;  // distinct expert buffers read per call, mean over the prepared inputs
  double floor_seconds = 0;   // bytes / bandwidth
  std::array<double, kernels::kOpClasses> class_seconds{};  // per call, each op synchronized (see above)
};

// A round through the config's main layers: each kind's cell times its count, summed; or (one_flush) every main
// layer's block in the config's order queued as one flush and synchronized once, as a served step runs them (one
// graph on CUDA, no host wait between layers), its activations flowing from layer to layer. A one-flush round
// carries the summed round's bytes and floor.
struct RoundCell {
  int64_t slots = 1, rows_per_slot = 1;
  Routing routing = Routing::as_drawn;
  int64_t layers = 0;
  double seconds = 0, bytes = 0, floor_seconds = 0;
  bool one_flush = false;
};

struct LayerBenchResult {
  std::vector<LayerKind> kinds;
  std::vector<LayerCell> cells;  // by kind, then routing (as drawn first), then the rows cells and 4 slots x 1
  std::vector<RoundCell> rounds;
  int64_t distinct_experts = 0;
  int64_t experts_per_token = 0;
  uint64_t host_weight_bytes = 0;  // the synthetic set in host memory
  std::string op_table;            // every op of the traced calls (kernels::OpTimer::table)
};

// "as drawn", "same 6" (k = the config's experts per token).
std::string routing_label(Routing routing, int64_t experts_per_token);

// Throws plumb::Error naming the option when a row count is below 1, there are none, or repeats is below 1.
void check_rows_and_repeats(const std::vector<int>& rows, int repeats);

// Throws plumb::Error for bad options (rows, repeats, context, distinct experts below the experts per token).
LayerBenchResult run_layer_bench(const dsv4::Config& config, kernels::Backend& backend,
                                 const LayerBenchOptions& options);

}  // namespace plumb::bench
