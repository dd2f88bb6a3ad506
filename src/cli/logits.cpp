// `plumb logits [MODEL] (--ids 1,2,3 | --prompt TEXT) [--numerics oracle|release]`: the logits of every position of
// a token sequence, for comparisons with other implementations. Writes them as float32 rows to --out (header: the
// 8 bytes "PLUMBLGT", u32 version 1, u32 dtype 1 = float32, u64 rows, u64 vocab; little-endian) and a JSON summary
// (ids, per-position argmax, top-5 and max |logit|) to --json or stdout. --choices adds every block's routing and
// indexer choices with their top-k margins; --mtp-out writes the MTP draft logits of positions 0..n-2 (row q takes
// the hidden state of q and the token at q + 1) in the same format; --streams-out writes each main block's output
// streams (blocks x positions rows of hc * hidden float32, same header with rows = blocks * positions) to locate a
// disagreement; --ops-out writes every op's outputs in call order (kernels/recording_backend.h) to find the op
// where two backends part. Without MODEL, the built-in tiny model.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "cli/command.h"
#include "model/dsv4/builtin_model.h"
#include "model/dsv4/dsv4_model.h"
#include "text/tokenizer.h"

namespace {

using namespace plumb;
using nlohmann::json;

struct LogitsOptions {
  std::string model, ids, prompt, numerics = "release", backend = "cpu", out, json_out, mtp_out, streams_out, ops_out;
  bool choices = false;
  int32_t chunk = 64;
};

std::vector<int32_t> parse_ids(const std::string& text) {
  std::vector<int32_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      const long long v = std::stoll(item, &used);
      if (used != item.size() || v < INT32_MIN || v > INT32_MAX) throw std::invalid_argument(item);
      ids.push_back(int32_t(v));
    } catch (const std::exception&) {
      fail("--ids: '{}' is not a token id (give comma-separated integers)", item);
    }
  }
  if (ids.empty()) fail("--ids: no token ids given");
  return ids;
}

void write_logits_file(const std::string& path, const std::vector<float>& logits, int64_t rows, int64_t vocab) {
  std::ofstream out(path, std::ios::binary);
  const uint32_t version = 1, dtype = 1;
  const uint64_t r = uint64_t(rows), v = uint64_t(vocab);
  out.write("PLUMBLGT", 8);
  out.write(reinterpret_cast<const char*>(&version), 4);
  out.write(reinterpret_cast<const char*>(&dtype), 4);
  out.write(reinterpret_cast<const char*>(&r), 8);
  out.write(reinterpret_cast<const char*>(&v), 8);
  out.write(reinterpret_cast<const char*>(logits.data()), std::streamsize(logits.size() * sizeof(float)));
  if (!out) fail("{}: cannot write", path);
}

json margin_value(double m) { return std::isfinite(m) ? json(m) : json(nullptr); }

json position_summary(std::span<const float> row, int64_t position) {
  std::vector<int32_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + std::min<size_t>(5, order.size()), order.end(),
                    [&](int32_t a, int32_t b) { return row[size_t(a)] > row[size_t(b)] || (row[size_t(a)] == row[size_t(b)] && a < b); });
  json top = json::array();
  for (size_t i = 0; i < std::min<size_t>(5, order.size()); ++i) top.push_back({order[i], row[size_t(order[i])]});
  float max_abs = 0;
  for (float v : row) max_abs = std::max(max_abs, std::fabs(v));
  return {{"position", position}, {"argmax", order[0]}, {"top5", top}, {"max_abs", max_abs}};
}

int run_logits(const LogitsOptions& o) {
  const std::filesystem::path dir = o.model.empty() ? dsv4::builtin_model_dir() : std::filesystem::path(o.model);
  if (o.ids.empty() == o.prompt.empty()) fail("give exactly one of --ids or --prompt");
  std::vector<int32_t> ids;
  if (!o.ids.empty()) {
    ids = parse_ids(o.ids);
  } else {
    // Text as a user would send it: special tokens spelled in the text are recognised, no BOS is added.
    for (const auto id : text::Tokenizer::from_file(dir).encode(o.prompt, true)) ids.push_back(int32_t(id));
    if (ids.empty()) fail("--prompt: the text encodes to no tokens");
  }
  const int64_t n = int64_t(ids.size());
  if (o.chunk < 1) fail("--chunk must be at least 1");
  dsv4::Dsv4Options options{.numerics = kernels::parse_numerics(o.numerics),
                            .backend = o.backend,
                            .slots = 1,
                            .max_rows_per_slot = o.chunk,
                            .max_context = n,
                            .name = dir.filename().string()};
  std::vector<kernels::OpRecord> op_records;
  if (!o.ops_out.empty()) options.record_ops = &op_records;
  auto model = dsv4::Dsv4Model::open(dir, options);
  const int64_t vocab = model->info().vocab_size;
  dsv4::ForwardTrace trace;
  trace.keep_streams = !o.streams_out.empty();
  if (o.choices || trace.keep_streams) model->set_trace(&trace);

  // Chunks of at most `chunk` rows; chunking never changes the logits.
  std::vector<float> logits(size_t(n * vocab));
  for (int64_t begin = 0; begin < n; begin += o.chunk) {
    const int64_t end = std::min(n, begin + o.chunk);
    std::vector<model::Row> rows;
    for (int64_t p = begin; p < end; ++p) rows.push_back({0, p, ids[size_t(p)], true});
    model->forward(rows, std::span<float>(logits).subspan(size_t(begin * vocab), size_t((end - begin) * vocab)));
  }
  model->set_trace(nullptr);

  json summary = {{"model", dir.string()}, {"numerics", o.numerics}, {"backend", o.backend}, {"ids", ids}, {"vocab", vocab}};
  json positions = json::array();
  float max_abs = 0;
  for (int64_t p = 0; p < n; ++p) {
    positions.push_back(position_summary(std::span<const float>(logits).subspan(size_t(p * vocab), size_t(vocab)), p));
    max_abs = std::max(max_abs, positions.back()["max_abs"].get<float>());
  }
  summary["positions"] = positions;
  summary["max_abs_logit"] = max_abs;
  if (!o.out.empty()) {
    write_logits_file(o.out, logits, n, vocab);
    summary["file"] = o.out;
  }
  if (o.choices) {
    json choices = json::array();
    for (const dsv4::ChoiceRecord& r : trace.choices) {
      json e = {{"position", r.position}, {"block", r.block}};
      if (!r.indexer_selected.empty()) {
        e["indexer_selected"] = r.indexer_selected;
        e["indexer_margin"] = margin_value(r.indexer_margin);
      }
      e["experts"] = r.experts;
      e["router_margin"] = margin_value(r.router_margin);
      choices.push_back(std::move(e));
    }
    summary["choices"] = choices;
  }
  if (!o.streams_out.empty()) {
    std::vector<float> all;
    for (const auto& block : trace.block_streams) all.insert(all.end(), block.begin(), block.end());
    const int64_t width = model->config().hc_mult * model->config().hidden_size;
    write_logits_file(o.streams_out, all, int64_t(all.size()) / width, width);
    summary["streams_file"] = o.streams_out;
    summary["stream_blocks"] = trace.block_streams.size();
  }
  if (!o.ops_out.empty()) {
    kernels::write_op_records(o.ops_out, op_records);
    summary["ops_file"] = o.ops_out;
    summary["op_records"] = op_records.size();
  }
  if (!o.mtp_out.empty()) {
    if (!model->info().has_mtp) fail("--mtp-out: the model has no MTP block");
    // Catch-up rows of the whole sequence, in chunks (each chunk's hidden states come from one forward).
    model->reset_slot(0);
    std::vector<float> draft(size_t(std::max<int64_t>(n - 1, 0) * vocab)), scratch(size_t(o.chunk * vocab));
    for (int64_t begin = 0; begin < n; begin += o.chunk) {
      const int64_t end = std::min(n, begin + o.chunk);
      std::vector<model::Row> rows;
      for (int64_t p = begin; p < end; ++p) rows.push_back({0, p, ids[size_t(p)], false});
      model->forward(rows, scratch);
      std::vector<model::DraftRow> drafts;
      for (int64_t q = begin; q < std::min(end, n - 1); ++q) drafts.push_back({0, q, ids[size_t(q + 1)], false});
      model->draft_forward(drafts, std::span<float>(draft).subspan(size_t(begin * vocab), drafts.size() * size_t(vocab)));
    }
    write_logits_file(o.mtp_out, draft, n - 1, vocab);
    summary["mtp_file"] = o.mtp_out;
  }
  const std::string text = summary.dump(1) + "\n";
  if (o.json_out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    std::ofstream out(o.json_out);
    out << text;
    if (!out) fail("{}: cannot write", o.json_out);
  }
  return 0;
}

const plumb::cli::RegisterCommand reg(
    "logits", "dump per-position logits of a token sequence (for comparisons)", [](CLI::App& app) {
      auto o = std::make_shared<LogitsOptions>();
      app.add_option("MODEL", o->model, "model folder (default: the built-in tiny model)");
      app.add_option("--ids", o->ids, "token ids, comma-separated");
      app.add_option("--prompt", o->prompt, "text, encoded with the model's tokenizer.json");
      app.add_option("--numerics", o->numerics, "release (production) or oracle (float64 reference)")
          ->check(CLI::IsMember({"release", "oracle"}));
      app.add_option("--backend", o->backend, "cpu or cuda (release numerics)")->check(CLI::IsMember({"cpu", "cuda"}));
      app.add_option("--out", o->out, "write the logits (float32 rows) to this file");
      app.add_option("--json", o->json_out, "write the JSON summary here instead of stdout");
      app.add_flag("--choices", o->choices, "add each block's routing and indexer choices and top-k margins");
      app.add_option("--mtp-out", o->mtp_out, "also write the MTP draft logits of positions 0..n-2 here");
      app.add_option("--streams-out", o->streams_out, "also write each main block's output streams here");
      app.add_option("--ops-out", o->ops_out, "also write every op's outputs, in call order, here");
      app.add_option("--chunk", o->chunk, "rows per forward launch (results do not depend on it)");
      return [o] { return run_logits(*o); };
    });

}  // namespace
