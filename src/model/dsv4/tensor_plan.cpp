// Building the tensor plan block by block, and the byte sums `plumb info` prints.
#include "model/dsv4/tensor_plan.h"

namespace plumb::dsv4 {
namespace {

constexpr int64_t kFp8Tile = 128;
constexpr int64_t kFp4Block = 32;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

class Planner {
 public:
  explicit Planner(const Config& c) : c_(c) {}

  void add(std::string name, DType dtype, std::vector<int64_t> shape, TensorKind kind, int64_t block = -1,
           int64_t expert = -1) {
    out_.push_back({std::move(name), dtype, std::move(shape), kind, block, expert});
  }
  // `X.weight` in e4m3 and `X.scale`, one E8M0 per 128x128 tile.
  void fp8_linear(const std::string& stem, int64_t out, int64_t in, int64_t block) {
    add(stem + ".weight", DType::dtype_f8_e4m3, {out, in}, TensorKind::fp8_weight, block);
    add(stem + ".scale", DType::dtype_f8_e8m0, {ceil_div(out, kFp8Tile), ceil_div(in, kFp8Tile)}, TensorKind::fp8_scale,
        block);
  }
  void fp4_linear(const std::string& stem, int64_t out, int64_t in, int64_t block, int64_t expert) {
    add(stem + ".weight", DType::dtype_i8, {out, in / 2}, TensorKind::fp4_weight, block, expert);
    add(stem + ".scale", DType::dtype_f8_e8m0, {out, in / kFp4Block}, TensorKind::fp4_scale, block, expert);
  }
  void bf16_linear(const std::string& name, int64_t out, int64_t in, int64_t block) {
    add(name, DType::dtype_bf16, {out, in}, TensorKind::bf16_linear, block);
  }
  void norm(const std::string& name, int64_t dim, int64_t block) {
    add(name, DType::dtype_bf16, {dim}, TensorKind::norm, block);
  }

  // ratio 4 overlaps consecutive windows, so wkv/wgate/ape are twice the head width there.
  void compressor(const std::string& p, int ratio, int64_t head_dim, int64_t block) {
    const int64_t width = (ratio == 4 ? 2 : 1) * head_dim;
    add(p + "ape", DType::dtype_f32, {ratio, width}, TensorKind::ape, block);
    bf16_linear(p + "wkv.weight", width, c_.hidden_size, block);
    bf16_linear(p + "wgate.weight", width, c_.hidden_size, block);
    norm(p + "norm.weight", head_dim, block);
  }

  void attention(const std::string& p, const BlockSpec& spec, int64_t block) {
    const int64_t d = c_.hidden_size, heads = c_.num_heads, hd = c_.head_dim;
    add(p + "attn.attn_sink", DType::dtype_f32, {heads}, TensorKind::attn_sink, block);
    fp8_linear(p + "attn.wq_a", c_.q_lora_rank, d, block);
    norm(p + "attn.q_norm.weight", c_.q_lora_rank, block);
    fp8_linear(p + "attn.wq_b", heads * hd, c_.q_lora_rank, block);
    fp8_linear(p + "attn.wkv", hd, d, block);
    norm(p + "attn.kv_norm.weight", hd, block);
    fp8_linear(p + "attn.wo_a", c_.o_groups * c_.o_lora_rank, heads * hd / c_.o_groups, block);
    fp8_linear(p + "attn.wo_b", d, c_.o_groups * c_.o_lora_rank, block);
    if (spec.compress_ratio == 0) return;
    compressor(p + "attn.compressor.", spec.compress_ratio, hd, block);
    if (spec.attention != AttentionKind::csa) return;
    fp8_linear(p + "attn.indexer.wq_b", c_.index_n_heads * c_.index_head_dim, c_.q_lora_rank, block);
    bf16_linear(p + "attn.indexer.weights_proj.weight", c_.index_n_heads, d, block);
    compressor(p + "attn.indexer.compressor.", spec.compress_ratio, c_.index_head_dim, block);
  }

  void moe(const std::string& p, const BlockSpec& spec, int64_t block) {
    const int64_t d = c_.hidden_size, inter = c_.moe_inter_dim;
    bf16_linear(p + "ffn.gate.weight", c_.n_routed_experts, d, block);
    if (spec.hash_routed) {
      add(p + "ffn.gate.tid2eid", DType::dtype_i64, {c_.vocab_size, c_.experts_per_token}, TensorKind::hash_table,
          block);
    } else {
      add(p + "ffn.gate.bias", DType::dtype_f32, {c_.n_routed_experts}, TensorKind::gate_bias, block);
    }
    for (int64_t e = 0; e < c_.n_routed_experts; ++e) {
      const std::string ep = p + "ffn.experts." + std::to_string(e) + ".";
      fp4_linear(ep + "w1", inter, d, block, e);
      fp4_linear(ep + "w2", d, inter, block, e);
      fp4_linear(ep + "w3", inter, d, block, e);
    }
    fp8_linear(p + "ffn.shared_experts.w1", inter, d, block);
    fp8_linear(p + "ffn.shared_experts.w2", d, inter, block);
    fp8_linear(p + "ffn.shared_experts.w3", inter, d, block);
  }

  // hc_pre's mixes: hc_mult pre weights, hc_mult post weights, hc_mult^2 combination entries.
  void hyper_connections(const std::string& p, int64_t block) {
    const int64_t hc = c_.hc_mult, mix = (2 + hc) * hc;
    for (const char* site : {"attn", "ffn"}) {
      add(p + "hc_" + site + "_fn", DType::dtype_f32, {mix, hc * c_.hidden_size}, TensorKind::hc_fn, block);
      add(p + "hc_" + site + "_base", DType::dtype_f32, {mix}, TensorKind::hc_base, block);
      add(p + "hc_" + site + "_scale", DType::dtype_f32, {3}, TensorKind::hc_scale, block);
    }
  }

  void head_mix(const std::string& p, int64_t block) {
    const int64_t hc = c_.hc_mult;
    add(p + "hc_head_fn", DType::dtype_f32, {hc, hc * c_.hidden_size}, TensorKind::hc_fn, block);
    add(p + "hc_head_base", DType::dtype_f32, {hc}, TensorKind::hc_base, block);
    add(p + "hc_head_scale", DType::dtype_f32, {1}, TensorKind::hc_scale, block);
  }

  std::vector<PlannedTensor> build() {
    const int64_t d = c_.hidden_size;
    add("embed.weight", DType::dtype_bf16, {c_.vocab_size, d}, TensorKind::embedding);
    add("head.weight", DType::dtype_bf16, {c_.vocab_size, d}, TensorKind::bf16_linear);
    norm("norm.weight", d, -1);
    head_mix("", -1);
    for (int64_t b = 0; b < c_.num_blocks(); ++b) {
      const BlockSpec& spec = c_.blocks[size_t(b)];
      const std::string p = c_.block_prefix(b);
      if (spec.mtp) {  // the draft block's input projections and its own output norm and head mixes
        fp8_linear(p + "e_proj", d, d, b);
        fp8_linear(p + "h_proj", d, d, b);
        norm(p + "enorm.weight", d, b);
        norm(p + "hnorm.weight", d, b);
        norm(p + "norm.weight", d, b);
        head_mix(p, b);
      }
      attention(p, spec, b);
      moe(p, spec, b);
      norm(p + "attn_norm.weight", d, b);
      norm(p + "ffn_norm.weight", d, b);
      hyper_connections(p, b);
    }
    return std::move(out_);
  }

 private:
  const Config& c_;
  std::vector<PlannedTensor> out_;
};

}  // namespace

uint64_t PlannedTensor::nbytes() const {
  uint64_t n = dtype_size(dtype);
  for (int64_t s : shape) n *= uint64_t(s);
  return n;
}

std::vector<PlannedTensor> plan_tensors(const Config& config) { return Planner(config).build(); }

WeightBytes weight_bytes(const Config& config, const std::vector<PlannedTensor>& plan) {
  WeightBytes w;
  uint64_t embed_row = 0, head = 0;
  for (const auto& t : plan) {
    const uint64_t n = t.nbytes();
    w.total += n;
    w.by_dtype[t.dtype] += n;
    const bool mtp = t.block >= config.num_layers;
    if (mtp) w.mtp += n;
    uint64_t read = n;  // what one decoded token reads of this tensor
    if (t.kind == TensorKind::embedding || t.kind == TensorKind::hash_table) read = n / uint64_t(config.vocab_size);
    if (t.expert >= 0) read = t.expert < config.experts_per_token ? n : 0;  // experts of one block are equal in size
    if (t.kind == TensorKind::embedding) embed_row = read;
    if (t.name == "head.weight") head = n;
    (mtp ? w.per_token_mtp : w.per_token) += read;
  }
  if (config.num_mtp_layers > 0) w.per_token_mtp += embed_row + head;
  return w;
}

}  // namespace plumb::dsv4
