// Running `plumb synth`: backend and bandwidth, the kernel classes on CUDA, the layers, then the table and the JSON.
#include "bench/synth_bench.h"

#include <cstdio>
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/thread_pool.h"
#include "bench/host_bandwidth.h"
#include "bench/report.h"
#include "bench/synth_layers.h"
#include "kernels/backend.h"
#include "kernels/op_timer.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/synth.h"
#include "model/dsv4/release_config.h"

namespace plumb::bench {
namespace {

using nlohmann::json;

void say(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

dsv4::Config layers_config(const std::string& path) {
  if (path.empty()) return dsv4::release_flash_config();
  std::ifstream in(path);
  if (!in) fail("--config {}: cannot read the file", path);
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    fail("--config {}: not valid JSON ({})", path, e.what());
  }
  return dsv4::Config::from_json(j, path);
}

// One table row and its JSON cell.
struct Row {
  std::string cls, shape;
  int64_t rows = 0;
  double seconds = 0, bytes = 0, floor_seconds = 0;
};

class Results {
 public:
  void add(const Row& r, json extra) {
    table_.rows.push_back({r.cls, r.shape, std::to_string(r.rows), format_number(r.seconds * 1e6),
                           format_number(r.bytes / 1e9, 3), format_number(r.floor_seconds * 1e6),
                           fmt::format("{:.0f}%", 100.0 * r.floor_seconds / r.seconds)});
    extra["class"] = r.cls;
    extra["shape"] = r.shape;
    extra["rows"] = r.rows;
    extra["seconds"] = r.seconds;
    extra["bytes"] = r.bytes;
    extra["floor_seconds"] = r.floor_seconds;
    cells_.push_back(std::move(extra));
  }
  const Table& table() const { return table_; }
  const json& cells() const { return cells_; }

 private:
  Table table_{{"class", "shape", "rows", "time us", "GB read", "floor us", "of floor"}, {}};
  json cells_ = json::array();
};

std::string shape_label(int64_t slots, Routing routing, int64_t experts_per_token) {
  return fmt::format("{} slot{}, {}", slots, slots == 1 ? "" : "s", routing_label(routing, experts_per_token));
}

json class_json(const LayerCell& c) {
  json j = json::object();
  for (size_t k = 0; k < kernels::kOpClasses; ++k) j[kernels::op_class_name(kernels::OpClass(k))] = c.class_seconds[k];
  return j;
}

json layer_cell_json(const LayerBenchResult& r, const LayerCell& c) {
  const LayerKind& kind = r.kinds[c.kind];
  return {{"type", "layer"},
          {"kind", kind.label()},
          {"main_layers", kind.main_layers},
          {"mtp_blocks", kind.mtp_blocks},
          {"slots", c.slots},
          {"rows_per_slot", c.rows_per_slot},
          {"routing", routing_label(c.routing, r.experts_per_token)},
          {"expert_buffers", c.expert_buffers},
          {"host_seconds", c.host_seconds},
          {"class_seconds", class_json(c)}};
}

// The layer cells' dispatch classes: mean time per call of each class's ops, each op synchronized alone.
Table class_table(const LayerBenchResult& r) {
  Table t{{"layer", "shape", "rows"}, {}};
  for (size_t k = 0; k < kernels::kOpClasses; ++k) t.header.push_back(fmt::format("{} us", kernels::op_class_name(kernels::OpClass(k))));
  t.header.push_back("layer us");
  t.header.push_back("host us");  // until the call returned: near "layer us" means the host sets the pace
  for (const LayerCell& c : r.cells) {
    std::vector<std::string> row{r.kinds[c.kind].label(), shape_label(c.slots, c.routing, r.experts_per_token),
                                 std::to_string(c.slots * c.rows_per_slot)};
    for (double s : c.class_seconds) row.push_back(format_number(s * 1e6));
    row.push_back(format_number(c.seconds * 1e6));
    row.push_back(format_number(c.host_seconds * 1e6));
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The layer cells, then the rounds; returns the layers' settings and kinds for the JSON.
json add_layers(const LayerBenchResult& r, Results& out) {
  for (const LayerCell& c : r.cells)
    out.add({"layer " + r.kinds[c.kind].label(), shape_label(c.slots, c.routing, r.experts_per_token),
             c.slots * c.rows_per_slot, c.seconds, c.bytes, c.floor_seconds},
            layer_cell_json(r, c));
  for (const RoundCell& c : r.rounds)
    out.add({fmt::format("{}-layer round{}", c.layers, c.one_flush ? ", one flush" : ""),
             shape_label(c.slots, c.routing, r.experts_per_token), c.slots * c.rows_per_slot, c.seconds, c.bytes,
             c.floor_seconds},
            {{"type", "round"},
             {"one_flush", c.one_flush},
             {"layers", c.layers},
             {"slots", c.slots},
             {"rows_per_slot", c.rows_per_slot},
             {"routing", routing_label(c.routing, r.experts_per_token)}});
  json kinds = json::array();
  for (const LayerKind& k : r.kinds)
    kinds.push_back({{"kind", k.label()}, {"main_layers", k.main_layers}, {"mtp_blocks", k.mtp_blocks}});
  return {{"kinds", kinds}, {"distinct_experts", r.distinct_experts}, {"host_weight_bytes", r.host_weight_bytes}};
}

std::string kinds_line(const LayerBenchResult& r) {
  std::string line = "layer kinds (main layers):";
  for (const LayerKind& k : r.kinds) {
    line += fmt::format(" {} x{}", k.label(), k.main_layers);
    if (k.mtp_blocks > 0) line += fmt::format(" (+{} MTP)", k.mtp_blocks);
    line += ",";
  }
  line.pop_back();
  return line;
}

}  // namespace

int run_synth(const SynthOptions& o) {
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda")
    fail("--backend {}: use auto, cpu or cuda", o.backend);
  if (!o.only.empty() && o.only != "kernels" && o.only != "layers") fail("--only {}: use kernels or layers", o.only);
  check_rows_and_repeats(o.rows, o.repeats);  // before the bandwidth and the weights take their time
  const bool cuda = o.backend == "cuda" || (o.backend == "auto" && cuda::device_available());
  if (!cuda && o.only == "kernels")
    fail("--only kernels: the kernel classes are CUDA kernels; run it with --backend cuda on a GPU machine");
  const dsv4::Config config = layers_config(o.config_path);

  std::unique_ptr<kernels::Backend> backend =
      cuda ? kernels::make_cuda_backend() : kernels::make_host_backend(kernels::Numerics::release);
  const std::string device =
      cuda ? cuda::device_name() : fmt::format("host, {} threads", default_thread_pool().threads());
  say("measuring the copy bandwidth");
  const double bandwidth = cuda ? cuda::measure_copy_bandwidth() : measure_host_copy_bandwidth();
  const std::string header = fmt::format("{} backend on {}, copy bandwidth {:.3f} TB/s (read + write)",
                                         backend->name(), device, bandwidth / 1e12);
  say(header);

  Results results;
  if (cuda && o.only != "layers") {
    say("kernel classes: FP8 linears and routed experts at release widths");
    for (const cuda::KernelCell& c : cuda::time_kernel_classes(o.rows, o.repeats))
      results.add({c.cls, c.shape, c.rows, c.seconds, c.bytes, c.bytes / bandwidth}, {{"type", "kernel"}});
  } else if (!cuda) {
    say("cpu backend: the kernel classes are CUDA kernels, so only the layers are timed");
  }
  json layers;
  std::string kinds, op_table;
  Table classes;
  if (o.only != "kernels") {
    const LayerBenchResult r = run_layer_bench(config, *backend,
                                               {.rows = o.rows,
                                                .repeats = o.repeats,
                                                .context = o.context,
                                                .distinct_experts = o.distinct_experts,
                                                .bandwidth = bandwidth,
                                                .say = say});
    layers = add_layers(r, results);
    layers["context"] = o.context;
    kinds = kinds_line(r);
    classes = class_table(r);
    op_table = r.op_table;
  }

  std::printf("%s\n", header.c_str());
  if (!kinds.empty()) std::printf("%s\n", kinds.c_str());
  std::printf("\n");
  results.table().print(stdout);
  if (!classes.rows.empty()) {
    std::printf("\nlayer cells by dispatch class (mean per call of 8 traced calls, each op synchronized alone)\n");
    classes.print(stdout);
  }
  if (o.op_times && !op_table.empty()) std::printf("\n%s", op_table.c_str());
  const std::string launches = backend->launch_summary();
  if (!launches.empty()) std::printf("\n%s\n", launches.c_str());
  if (!o.json_path.empty()) {
    json j = provenance_json();
    j["tool"] = "synth";
    j["backend"] = backend->name();
    j["device"] = device;
    j["copy_bandwidth_bytes_per_s"] = bandwidth;
    j["launch_summary"] = launches;
    j["settings"] = {{"rows", o.rows},
                     {"repeats", o.repeats},
                     {"context", o.context},
                     {"distinct_experts", o.distinct_experts},
                     {"only", o.only.empty() ? "all" : o.only},
                     {"config", o.config_path.empty() ? "built-in DeepSeek-V4-Flash" : o.config_path}};
    j["table"] = {{"header", results.table().header}, {"rows", results.table().rows}};
    j["cells"] = results.cells();
    if (!layers.is_null()) j["layers"] = layers;
    write_json_file(o.json_path, j);
  }
  return 0;
}

}  // namespace plumb::bench
