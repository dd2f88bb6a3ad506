// Contract entries of attention with sinks (Backend::attention): window attention (the last `window` positions of
// the row's slot, from the ring) and compressed attention (window plus compressed rows: every visible one for HCA,
// the indexer's selection with -1 padding for CSA). State: a window ring (window + 16 rows per slot, as slots keep
// it) and compressed rows for three slots; rows of one slot at consecutive positions, or of several slots
// interleaved, early positions whose window is not yet full among them. The oracle is the reference attention:
// a float64 softmax with the sink in the denominator. attention_rope checks the op with the output's inverse
// rotation (Backend::attention_rope) against the reference attention then the reference rope.
#include <algorithm>
#include <cmath>
#include <memory>

#include "kernels/contract/entries.h"
#include "kernels/contract/entries/op_problem.h"

namespace plumb::contract {
namespace {

constexpr int64_t kSlots = 3, kMaxRowsPerSlot = 16;

struct AttentionShape {
  const char* name;
  int64_t heads, head_dim, window, block;
  int64_t ratio, compressed_rows_per_slot, topk;  // ratio 0: window only; topk 0: every visible compressed row
  bool release;
};
constexpr AttentionShape kWindowShapes[] = {
    {"4 heads x 64, window 16, blocks of 8", 4, 64, 16, 8, 0, 0, 0, false},
    {"release 64 heads x 512, window 128", 64, 512, 128, 64, 0, 0, 0, true},
};
constexpr AttentionShape kSparseShapes[] = {
    {"HCA ratio 8, 4 heads x 64, window 16, blocks of 8", 4, 64, 16, 8, 8, 32, 0, false},
    {"CSA ratio 4, top 8, 4 heads x 64, window 16, blocks of 8", 4, 64, 16, 8, 4, 64, 8, false},
    {"release HCA ratio 128, 64 heads x 512, window 128", 64, 512, 128, 64, 128, 16, 0, true},
    {"release CSA ratio 4, top 64, 64 heads x 512, window 128", 64, 512, 128, 64, 4, 256, 64, true},
};

constexpr AttentionShape kRopeShapes[] = {
    {"window, 4 heads x 64 (rope 32), window 16, blocks of 8", 4, 64, 16, 8, 0, 0, 0, false},
    {"CSA ratio 4, top 8, 4 heads x 64 (rope 32), window 16, blocks of 8", 4, 64, 16, 8, 4, 64, 8, false},
    {"release HCA ratio 128, 64 heads x 512 (rope 64), window 128", 64, 512, 128, 64, 128, 16, 0, true},
    {"release CSA ratio 4, top 64, 64 heads x 512 (rope 64), window 128", 64, 512, 128, 64, 4, 256, 64, true},
};

// The inverse rotation of the output as the model's layers take it: the last 64 dims of 512 (32 of smaller heads),
// YaRN for compressed attention.
kernels::RopeParams output_rope(const AttentionShape& s) {
  kernels::RopeParams r{.head_dim = s.head_dim, .rope_dims = s.head_dim >= 512 ? 64 : 32, .inverse = true};
  if (s.ratio > 0) r.theta = 160000.0, r.yarn_factor = 16.0, r.yarn_original = 65536;
  return r;
}

class AttentionProblem : public OpProblem {
 public:
  // with_rope: Backend::attention_rope with output_rope(s); otherwise Backend::attention.
  AttentionProblem(const Binding& b, const AttentionShape& s, RowMix mix, int32_t rows, uint64_t seed, bool with_rope)
      : OpProblem(b), s_(s), rows_(rows), with_rope_(with_rope) {
    InputRng rng(seed * 6007 + uint64_t(s.heads * 31 + s.ratio));
    const int64_t d = s.head_dim;
    ring_ = random_rows(kSlots * ring_rows(), d, 1.0, rng);
    compressed_ = random_rows(kSlots * std::max<int64_t>(s.compressed_rows_per_slot, 1), d, 1.0, rng);
    // Logits spread about 1.5 and sinks near the largest logits, so both the softmax and the sink matter.
    q_ = random_rows(rows, s.heads * d, 1.5, rng);
    for (int64_t h = 0; h < s.heads; ++h) sinks_.push_back(float(bf16_round(1.5 + rng.normal())));
    const int64_t last = s.ratio > 0 ? s.ratio * s.compressed_rows_per_slot - 1 : 1000;
    const int64_t start = rng.uniform_int(0, int32_t(last - rows + 1));
    for (int32_t r = 0; r < rows; ++r) {
      if (mix == RowMix::mix_multi_slot) {
        // Slot 2 stays early (a window not yet full, few or no compressed rows); the others anywhere.
        const int32_t slot = r % int32_t(kSlots);
        meta_.push_back({slot, rng.uniform_int(0, int32_t(slot == 2 ? s.window + 2 : last))});
      } else {
        meta_.push_back({0, start + r});  // consecutive positions of one slot, as a prefill chunk
      }
    }
    if (s.topk > 0) {
      for (int32_t r = 0; r < rows; ++r) {
        const int64_t visible = (meta_[size_t(r)].position + 1) / s.ratio;
        std::vector<int32_t> all;
        for (int32_t j = 0; j < visible; ++j) all.push_back(j);
        for (size_t i = 0; i < all.size(); ++i) std::swap(all[i], all[size_t(rng.uniform_int(int32_t(i), int32_t(all.size() - 1)))]);
        for (int64_t i = 0; i < s.topk; ++i) selected_.push_back(i < visible ? all[size_t(i)] : -1);
      }
    }
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(q_);
    for (int side : {kTest, kOracle}) {
      kernels::Backend& be = backend(side);
      ring_dev_[size_t(side)] = upload_all(be, ring_);
      compressed_dev_[size_t(side)] = upload_all(be, compressed_);
      sinks_dev_[size_t(side)] = be.upload_weight(f32_weight(sinks_, 1, s.heads));
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(s_.heads * s_.head_dim); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const int64_t m = int64_t(rows.size());
    std::vector<kernels::TokenRow> meta;
    std::vector<int32_t> selected;
    for (int32_t r : rows) {
      meta.push_back(meta_[size_t(r)]);
      if (s_.topk > 0) selected.insert(selected.end(), selected_.begin() + r * s_.topk, selected_.begin() + (r + 1) * s_.topk);
    }
    const DeviceTensor q = upload_rows(b, q_, rows), out = poisoned_act(b, m, s_.heads * s_.head_dim);
    DeviceTensor sel;
    if (s_.topk > 0) sel = upload_i32(b, selected, m, s_.topk);
    const kernels::AttentionParams p{.heads = s_.heads,
                                     .head_dim = s_.head_dim,
                                     .softmax_scale = 1.0 / std::sqrt(double(s_.head_dim)),
                                     .window = s_.window,
                                     .ring_rows = ring_rows(),
                                     .compress_ratio = s_.ratio,
                                     .compressed_rows_per_slot = s_.compressed_rows_per_slot,
                                     .block = s_.block};
    const kernels::Tensor* chosen = s_.topk > 0 ? &sel.t : nullptr;
    if (with_rope_) {
      b.attention_rope(p, output_rope(s_), q.t, ring_dev_[size_t(side)].t, compressed_dev_[size_t(side)].t, chosen,
                       sinks_dev_[size_t(side)], meta, out.t);
    } else {
      b.attention(p, q.t, ring_dev_[size_t(side)].t, compressed_dev_[size_t(side)].t, chosen,
                  sinks_dev_[size_t(side)], meta, out.t);
    }
    std::vector<double> values;
    append_values(b, out.t, values);
    return values;
  }
  std::string column_name(int32_t col) const override {
    return "head " + std::to_string(col / s_.head_dim) + " dim " + std::to_string(col % s_.head_dim);
  }

 private:
  int64_t ring_rows() const { return s_.window + kMaxRowsPerSlot; }

  AttentionShape s_;
  int32_t rows_;
  bool with_rope_;
  HostRows ring_, compressed_, q_;
  std::vector<float> sinks_;
  std::vector<kernels::TokenRow> meta_;
  std::vector<int32_t> selected_;
  std::array<DeviceTensor, 2> ring_dev_, compressed_dev_;
  std::array<kernels::Weight, 2> sinks_dev_;
};

template <size_t N>
KernelSpec attention_spec(const Binding& b, const AttentionShape (&shapes)[N], bool with_rope = false) {
  KernelSpec s;
  for (const auto& shape : shapes) {
    Shape sh{shape.name, shape.release};
    if (shape.release) sh.mixes = {RowMix::mix_random, RowMix::mix_multi_slot}, sh.max_rows = 8;
    s.shapes.push_back(sh);
  }
  s.mixes = {RowMix::mix_random, RowMix::mix_multi_slot, RowMix::mix_nonfinite};
  // Each probability is rounded to bf16 for P.V (2^-8 relative), moving an output by at most 2^-8 of the
  // probability-weighted mean |value| of its channel (values are N(0, 1): about 0.8, rarely past 3, while a row's
  // largest output is 1 to 2), and the output is rounded once more (2^-8): 4 x 2^-8 covers both.
  s.bound = 1.0 / 64;
  s.make = [b, &shapes, with_rope](const Shape& shape, RowMix mix, int32_t rows,
                                   uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : shapes)
      if (shape.name == sh.name) return std::make_unique<AttentionProblem>(b, sh, mix, rows, seed, with_rope);
    return nullptr;
  };
  return s;
}

}  // namespace

KernelSpec window_attention_entry(const Binding& b) {
  KernelSpec s = attention_spec(b, kWindowShapes);
  s.name = "window_attention";
  s.description = "attention over the window ring with a sink per head: online softmax in blocks, bf16 P, bf16 out";
  s.controls = b.controls("window_attention", {"sink_left_out", "window_off_by_one", "rows_read_pass_first_row"});
  return s;
}

KernelSpec sparse_attention_entry(const Binding& b) {
  KernelSpec s = attention_spec(b, kSparseShapes);
  s.name = "sparse_attention";
  s.description = "attention over the window and compressed rows (all visible, or a selection with -1 padding)";
  s.controls = b.controls("sparse_attention",
                          {"padding_reads_row_0", "newest_compressed_row_hidden", "accumulator_not_rescaled"});
  return s;
}

KernelSpec attention_rope_entry(const Binding& b) {
  KernelSpec s = attention_spec(b, kRopeShapes, true);
  s.name = "attention_rope";
  s.description = "attention (window, HCA, CSA), then the output's rope dims rotated back by the row's position";
  // Attention's bound (2^-6 of the row's largest output) for both values of a pair, rotated (at most sqrt(2) x
  // 2^-6), the angles' error (5e-4, as rope) and one more bf16 rounding (2^-9): 0.025, under 2^-5.
  s.bound = 1.0 / 32;
  s.controls = b.controls("rope", {"inverse_ignored", "yarn_ignored"});
  for (const std::string& c : b.controls("window_attention", {"sink_left_out"})) s.controls.push_back(c);
  return s;
}

}  // namespace plumb::contract
