// A block (attention then MoE sublayer), the heads, and the parameters the ops take from the config.
#include "model/dsv4/forward.h"

#include <cmath>
#include <limits>
#include <utility>

#include "base/error.h"

namespace plumb::dsv4 {

void LaunchRows::add(int32_t slot, int64_t position, int32_t token) {
  rows.push_back({slot, position});
  positions.push_back(position);
  tokens.push_back(token);
}

kernels::HcParams Forward::hc_params() const {
  return {.hc_mult = config_.hc_mult,
          .hidden = config_.hidden_size,
          .sinkhorn_iters = config_.hc_sinkhorn_iters,
          .hc_eps = config_.hc_eps,
          .norm_eps = config_.rms_norm_eps};
}

// Window-only blocks rotate with rope_theta; compressed blocks (their q, kv, compressed rows and indexer) with
// compress_rope_theta and YaRN.
kernels::RopeParams Forward::rope_params(const BlockSpec& spec, int64_t head_dim) const {
  kernels::RopeParams p{.head_dim = head_dim, .rope_dims = config_.rope_head_dim, .theta = config_.rope_theta};
  if (spec.compress_ratio > 0) {
    p.theta = config_.compress_rope_theta;
    p.yarn_factor = config_.rope_factor;
    p.yarn_original = config_.rope_original_max_position;
    p.beta_fast = config_.rope_beta_fast;
    p.beta_slow = config_.rope_beta_slow;
  }
  return p;
}

void Forward::block(int64_t b, const LaunchRows& rows, kernels::Tensor& x, kernels::Tensor& spare) {
  if (trace_) {
    for (const auto& row : rows.rows) {
      ChoiceRecord r;
      r.block = b;
      r.slot = row.slot;
      r.position = row.position;
      r.indexer_margin = r.router_margin = std::numeric_limits<double>::infinity();
      trace_->choices.push_back(std::move(r));
    }
  }
  attention(b, rows, x, spare);
  moe(b, rows, x, spare);
  if (trace_ && trace_->keep_streams) {
    if (trace_->block_streams.size() <= size_t(b)) trace_->block_streams.resize(size_t(b) + 1);
    auto& out = trace_->block_streams[size_t(b)];
    const size_t at = out.size();
    out.resize(at + size_t(x.rows * x.cols));
    backend_.download_f32(x, out.data() + at);
  }
}

void Forward::head(const HcWeights& hc, const Weight& norm, const kernels::Tensor& x, const kernels::Tensor& logits) {
  Workspace ws(scratch_);
  const int64_t n = x.rows, d = config_.hidden_size;
  const kernels::Tensor z = ws.act(n, d), zn = ws.act(n, d);
  backend_.hc_head(hc_params(), hc, x, z);
  backend_.rms_norm({config_.rms_norm_eps}, norm, z, zn);
  backend_.linear({.output = kernels::Rounding::f32}, weights_.head, zn, logits);
}

void Forward::record(const kernels::Tensor* selected, const kernels::Tensor* indexer_margin,
                     const kernels::Tensor* experts, const kernels::Tensor* router_margin, int64_t rows) {
  if (!trace_) return;
  ChoiceRecord* first = trace_->choices.data() + (trace_->choices.size() - size_t(rows));
  auto margins = [&](const kernels::Tensor& t) {
    std::vector<float> v(size_t(t.rows));
    backend_.download_f32(t, v.data());
    return v;
  };
  auto indices = [&](const kernels::Tensor& t) {
    std::vector<int32_t> v(size_t(t.rows * t.cols));
    backend_.download(t, v.data());
    return v;
  };
  if (selected) {
    const auto m = margins(*indexer_margin);
    const auto s = indices(*selected);
    for (int64_t i = 0; i < rows; ++i) {
      first[i].indexer_margin = m[size_t(i)];
      first[i].indexer_selected.assign(s.begin() + i * selected->cols, s.begin() + (i + 1) * selected->cols);
    }
  }
  if (experts) {
    const auto m = margins(*router_margin);
    const auto e = indices(*experts);
    for (int64_t i = 0; i < rows; ++i) {
      first[i].router_margin = m[size_t(i)];
      first[i].experts.assign(e.begin() + i * experts->cols, e.begin() + (i + 1) * experts->cols);
    }
  }
}

}  // namespace plumb::dsv4
