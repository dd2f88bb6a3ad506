// Building the typed weights tensor by tensor from a lookup, reporting progress in bytes; loading a folder runs the
// checkpoint checker first (all problems at once).
#include "model/dsv4/weights.h"

#include <map>
#include <tuple>

#include "base/error.h"
#include "model/dsv4/checkpoint_check.h"
#include "model/dsv4/tensor_plan.h"

namespace plumb::dsv4 {
namespace {

using kernels::WeightFormat;

// Shape and storage of one uploaded weight: identical keys are one upload.
using UploadKey = std::tuple<WeightFormat, const void*, const uint8_t*, int64_t, int64_t>;

class Loader {
 public:
  Loader(const TensorLookup& lookup, kernels::Backend& backend, const WeightProgress& progress, uint64_t total)
      : lookup_(lookup), backend_(backend), progress_(progress), total_(total) {}

  // `stem.weight` in e4m3 with its `stem.scale`.
  Weight fp8(const std::string& stem) { return quantized(stem, WeightFormat::fp8_blocks); }
  Weight fp4(const std::string& stem) { return quantized(stem, WeightFormat::fp4_blocks); }
  Weight plain(const std::string& name, WeightFormat format) {
    const TensorBytes t = lookup_(name);
    Weight w;
    w.format = format;
    w.rows = t.shape.size() == 2 ? t.shape[0] : 1;
    w.cols = t.shape.size() == 2 ? t.shape[1] : t.shape[0];
    w.data = t.bytes.data();
    require_size(name, t.bytes.size(), w.data_bytes());
    advance(t.bytes.size(), name);
    return upload(w);
  }
  Weight bf16(const std::string& name) { return plain(name, WeightFormat::bf16); }
  Weight f32(const std::string& name) { return plain(name, WeightFormat::f32); }
  HcWeights hc(const std::string& stem) { return {f32(stem + "_fn"), f32(stem + "_base"), f32(stem + "_scale")}; }
  CompressorWeights compressor(const std::string& p) {
    return {bf16(p + "wkv.weight"), bf16(p + "wgate.weight"), f32(p + "ape"), bf16(p + "norm.weight")};
  }
  ExpertWeights expert_fp8(const std::string& p) { return {fp8(p + "w1"), fp8(p + "w2"), fp8(p + "w3")}; }
  ExpertWeights expert_fp4(const std::string& p) { return {fp4(p + "w1"), fp4(p + "w2"), fp4(p + "w3")}; }

 private:
  Weight quantized(const std::string& stem, WeightFormat format) {
    const TensorBytes weight = lookup_(stem + ".weight"), scale = lookup_(stem + ".scale");
    Weight w;
    w.format = format;
    w.rows = weight.shape[0];
    w.cols = weight.shape[1] * (format == WeightFormat::fp4_blocks ? 2 : 1);
    w.data = weight.bytes.data();
    w.scales = reinterpret_cast<const uint8_t*>(scale.bytes.data());
    require_size(stem + ".weight", weight.bytes.size(), w.data_bytes());
    require_size(stem + ".scale", scale.bytes.size(), w.scale_bytes());
    advance(weight.bytes.size(), stem + ".weight");
    advance(scale.bytes.size(), stem + ".scale");
    return upload(w);
  }
  Weight upload(const Weight& host) {
    const UploadKey key{host.format, host.data, host.scales, host.rows, host.cols};
    const auto it = uploaded_.find(key);
    if (it != uploaded_.end()) return it->second;
    return uploaded_.emplace(key, backend_.upload_weight(host)).first->second;
  }
  static void require_size(const std::string& name, size_t have, size_t need) {
    if (have != need) fail("tensor {}: {} bytes given, its shape and format take {}", name, have, need);
  }
  void advance(uint64_t bytes, const std::string& name) {
    done_ += bytes;
    if (progress_) progress_(int64_t(done_), int64_t(total_), name);
  }

  const TensorLookup& lookup_;
  kernels::Backend& backend_;
  const WeightProgress& progress_;
  uint64_t total_, done_ = 0;
  std::map<UploadKey, Weight> uploaded_;
};

AttentionWeights attention(Loader& l, const std::string& p, const BlockSpec& spec) {
  AttentionWeights a;
  a.wq_a = l.fp8(p + "attn.wq_a");
  a.q_norm = l.bf16(p + "attn.q_norm.weight");
  a.wq_b = l.fp8(p + "attn.wq_b");
  a.wkv = l.fp8(p + "attn.wkv");
  a.kv_norm = l.bf16(p + "attn.kv_norm.weight");
  a.wo_a = l.fp8(p + "attn.wo_a");
  a.wo_b = l.fp8(p + "attn.wo_b");
  a.sinks = l.f32(p + "attn.attn_sink");
  if (spec.compress_ratio > 0) a.compressor = l.compressor(p + "attn.compressor.");
  if (spec.attention == AttentionKind::csa) {
    a.index_wq_b = l.fp8(p + "attn.indexer.wq_b");
    a.index_weights_proj = l.bf16(p + "attn.indexer.weights_proj.weight");
    a.index_compressor = l.compressor(p + "attn.indexer.compressor.");
  }
  return a;
}

}  // namespace

ModelWeights load_weights(const io::CheckpointFolder& folder, const Config& config, kernels::Backend& backend,
                          const WeightProgress& progress) {
  const CheckReport report = check_checkpoint(folder, config);
  if (!report.ok()) {
    std::string list;
    for (size_t i = 0; i < report.problems.size() && i < 20; ++i) list += "\n  " + report.problems[i];
    if (report.problems.size() > 20) list += fmt::format("\n  ... and {} more", report.problems.size() - 20);
    fail("model folder {}: {} problem(s) with the weights:{}", folder.dir().string(), report.problems.size(), list);
  }
  const TensorLookup lookup = [&folder](const std::string& name) {
    const io::TensorRef ref = folder.at(name);
    return TensorBytes{ref.info->shape, ref.bytes()};
  };
  return build_weights(lookup, config, backend, progress);
}

ModelWeights build_weights(const TensorLookup& lookup, const Config& config, kernels::Backend& backend,
                           const WeightProgress& progress, VocabTables vocab) {
  const bool with_vocab = vocab == VocabTables::build;
  uint64_t total = 0;
  for (const PlannedTensor& t : plan_tensors(config))
    if (with_vocab || !is_vocab_table(t.name)) total += t.nbytes();

  Loader l(lookup, backend, progress, total);
  ModelWeights m;
  if (with_vocab) {
    m.embed = l.bf16("embed.weight");
    m.head = l.bf16("head.weight");
  }
  m.norm = l.bf16("norm.weight");
  m.hc_head = l.hc("hc_head");
  for (int64_t b = 0; b < config.num_blocks(); ++b) {
    const BlockSpec& spec = config.blocks[size_t(b)];
    const std::string p = config.block_prefix(b);
    BlockWeights w;
    if (spec.mtp) {
      w.mtp = {l.fp8(p + "e_proj"), l.fp8(p + "h_proj"), l.bf16(p + "enorm.weight"), l.bf16(p + "hnorm.weight"),
               l.bf16(p + "norm.weight"), l.hc(p + "hc_head")};
    }
    w.attn = attention(l, p, spec);
    w.router.gate = l.bf16(p + "ffn.gate.weight");
    if (spec.hash_routed) {
      w.router.tid2eid = l.plain(p + "ffn.gate.tid2eid", WeightFormat::i64);
    } else {
      w.router.bias = l.f32(p + "ffn.gate.bias");
    }
    for (int64_t e = 0; e < config.n_routed_experts; ++e)
      w.experts.push_back(l.expert_fp4(p + "ffn.experts." + std::to_string(e) + "."));
    w.shared = l.expert_fp8(p + "ffn.shared_experts.");
    w.attn_norm = l.bf16(p + "attn_norm.weight");
    w.ffn_norm = l.bf16(p + "ffn_norm.weight");
    w.hc_attn = l.hc(p + "hc_attn");
    w.hc_ffn = l.hc(p + "hc_ffn");
    m.blocks.push_back(std::move(w));
  }
  return m;
}

}  // namespace plumb::dsv4
