// Contract entries of the KV compressor steps (CSA: ratio 4, overlapping, two halves per token; HCA: ratio 16):
// the per-token projections with the position bias (Backend::compress_project, float32) and the pooling of a
// complete group from the slots' rings (Backend::compress_pool: per-channel softmax, bf16 out). Pooling reads slot
// state: rings of several slots with random projections, rows that pool groups of one slot or of several slots
// interleaved, group 0 of CSA (whose missing previous group weighs exactly 0). The oracle is the reference op.
#include <cmath>
#include <memory>

#include "kernels/contract/entries.h"
#include "kernels/contract/entries/op_problem.h"

namespace plumb::contract {
namespace {

constexpr int64_t kHidden = 256, kWidth = 64, kSlots = 3, kMaxRowsPerSlot = 16;

struct CompressShape {
  const char* name;
  int64_t ratio;
  bool overlap;
};
constexpr CompressShape kShapes[] = {
    {"CSA ratio 4, 2 x 64 overlapping", 4, true},
    {"HCA ratio 16, 64", 16, false},
};

int64_t coff(const CompressShape& s) { return s.overlap ? 2 : 1; }

kernels::CompressParams params(const CompressShape& s) {
  return {.ratio = s.ratio, .width = kWidth, .overlap = s.overlap, .ring_rows = kMaxRowsPerSlot + 2 * s.ratio};
}

// ---- projections ----

class ProjectProblem : public OpProblem {
 public:
  ProjectProblem(const Binding& b, const CompressShape& s, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), rows_(rows) {
    InputRng rng(seed * 409 + uint64_t(s.ratio));
    const int64_t w = coff(s) * kWidth;
    wkv_ = random_bf16(size_t(w * kHidden), 1.0 / std::sqrt(double(kHidden)), rng);
    wgate_ = random_bf16(size_t(w * kHidden), 1.0 / std::sqrt(double(kHidden)), rng);
    ape_ = random_f32(size_t(s.ratio * w), 1.0, rng);
    norm_ = random_bf16(size_t(kWidth), 1.0, rng);
    x_ = random_rows(rows, kHidden, 1.0, rng);
    for (int32_t r = 0; r < rows; ++r) positions_.push_back(rng.uniform_int(0, 4095));
    if (mix == RowMix::mix_nonfinite) plant_nonfinite(x_);
    for (int side : {kTest, kOracle}) {
      kernels::Backend& be = backend(side);
      w_[size_t(side)] = {be.upload_weight(bf16_weight(wkv_, w, kHidden)), be.upload_weight(bf16_weight(wgate_, w, kHidden)),
                          be.upload_weight(f32_weight(ape_, s.ratio, w)), be.upload_weight(bf16_weight(norm_, 1, kWidth))};
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(2 * coff(s_) * kWidth); }
  std::string column_name(int32_t col) const override {
    const int32_t w = int32_t(coff(s_) * kWidth);
    return (col < w ? "kv " : "score ") + std::to_string(col % w);
  }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    const int64_t m = int64_t(rows.size()), w = coff(s_) * kWidth;
    std::vector<int64_t> positions;
    for (int32_t r : rows) positions.push_back(positions_[size_t(r)]);
    const DeviceTensor x = upload_rows(b, x_, rows), kv = poisoned_act(b, m, w), score = poisoned_act(b, m, w);
    b.compress_project(params(s_), w_[size_t(side)], positions, x.t, kv.t, score.t);
    std::vector<double> k, z, out;
    append_values(b, kv.t, k);
    append_values(b, score.t, z);
    for (int64_t i = 0; i < m; ++i) {
      out.insert(out.end(), k.begin() + i * w, k.begin() + (i + 1) * w);
      out.insert(out.end(), z.begin() + i * w, z.begin() + (i + 1) * w);
    }
    return out;
  }

 private:
  CompressShape s_;
  int32_t rows_;
  std::vector<uint16_t> wkv_, wgate_, norm_;
  std::vector<float> ape_;
  HostRows x_;
  std::vector<int64_t> positions_;
  std::array<kernels::CompressorWeights, 2> w_;
};

// ---- pooling ----

class PoolProblem : public OpProblem {
 public:
  PoolProblem(const Binding& b, const CompressShape& s, RowMix mix, int32_t rows, uint64_t seed)
      : OpProblem(b), s_(s), p_(params(s)), rows_(rows) {
    InputRng rng(seed * 1303 + uint64_t(s.ratio));
    const int64_t ring = kSlots * p_.ring_rows, w = coff(s) * kWidth;
    kv_ = HostRows(ring, w);
    score_ = HostRows(ring, w);
    for (auto& v : kv_.v) v = double(float(rng.normal()));
    for (auto& v : score_.v) v = double(float(2.0 * rng.normal()));
    // Each slot's newest complete group; rows pool it and the groups before it (group 0 among them).
    const int64_t newest[kSlots] = {kMaxRowsPerSlot / s.ratio + 1, 40, 3};
    for (int32_t r = 0; r < rows; ++r) {
      const int32_t slot = mix == RowMix::mix_multi_slot ? r % int32_t(kSlots) : 0;
      const int64_t back = mix == RowMix::mix_multi_slot ? r / int32_t(kSlots) : r;
      rows_meta_.push_back({slot, std::max<int64_t>(0, newest[slot] - back % (newest[slot] + 1))});
    }
    if (mix == RowMix::mix_nonfinite) {
      if (rows > 1) score_.row(ring_row(rows_meta_[1], 0))[3] = std::nan("");
      if (rows > 2) kv_.row(ring_row(rows_meta_[2], s.ratio - 1))[w - 1] = INFINITY;
    }
    for (int side : {kTest, kOracle}) {
      kv_dev_[size_t(side)] = upload_all(backend(side), kv_);
      score_dev_[size_t(side)] = upload_all(backend(side), score_);
    }
  }
  int32_t rows() const override { return rows_; }
  int32_t width() const override { return int32_t(kWidth); }

 protected:
  std::vector<double> compute(int side, std::span<const int32_t> rows, int32_t) override {
    kernels::Backend& b = backend(side);
    std::vector<kernels::CompressRow> meta;
    for (int32_t r : rows) meta.push_back(rows_meta_[size_t(r)]);
    const DeviceTensor out = poisoned_act(b, int64_t(rows.size()), kWidth);
    b.compress_pool(p_, kv_dev_[size_t(side)].t, score_dev_[size_t(side)].t, meta, out.t);
    std::vector<double> values;
    append_values(b, out.t, values);
    return values;
  }

 private:
  // The ring row holding token `e` of a row's own group.
  int64_t ring_row(const kernels::CompressRow& row, int64_t e) const {
    return row.slot * p_.ring_rows + (row.group * s_.ratio + e) % p_.ring_rows;
  }

  CompressShape s_;
  kernels::CompressParams p_;
  int32_t rows_;
  HostRows kv_, score_;
  std::vector<kernels::CompressRow> rows_meta_;
  std::array<DeviceTensor, 2> kv_dev_, score_dev_;
};

template <typename P>
KernelSpec compressor_spec(const Binding& b, std::vector<RowMix> mixes) {
  KernelSpec s;
  for (const auto& shape : kShapes) s.shapes.push_back({shape.name, false});
  s.mixes = std::move(mixes);
  s.make = [b](const Shape& shape, RowMix mix, int32_t rows, uint64_t seed) -> std::unique_ptr<Problem> {
    for (const auto& sh : kShapes)
      if (shape.name == sh.name) return std::make_unique<P>(b, sh, mix, rows, seed);
    return nullptr;
  };
  return s;
}

}  // namespace

KernelSpec compressor_project_entry(const Binding& b) {
  KernelSpec s = compressor_spec<ProjectProblem>(b, {RowMix::mix_random, RowMix::mix_nonfinite});
  s.name = "compressor_project";
  s.description = "compressor projections kv = wkv x, score = wgate x + ape[position mod ratio], float32";
  // float32 sums of exact bf16 products over 256 inputs (eight partial sums of 32): under 35 float32 roundings of
  // the sum of |products|, about 10 here, against outputs of order 1.
  s.bound = 2e-5;
  s.controls = b.controls("compressor_project", {"ape_row_off_by_one"});
  return s;
}

KernelSpec compressor_pool_entry(const Binding& b) {
  KernelSpec s = compressor_spec<PoolProblem>(b, {RowMix::mix_random, RowMix::mix_multi_slot, RowMix::mix_nonfinite});
  s.name = "compressor_pool";
  s.description = "compressor pooling: per-channel float32 softmax over a group's entries (CSA: 2 groups), bf16 out";
  s.bound = 1.0 / 256 + 1e-5;  // one bf16 rounding (2^-8 relative) of a float32 softmax-weighted sum
  s.controls = b.controls("compressor_pool", {"overlap_halves_swapped", "missing_group_scored_zero", "last_entry_dropped"});
  return s;
}

}  // namespace plumb::contract
