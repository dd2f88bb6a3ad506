// The MTP draft head (dsv4-forward.md section 9.2): e_proj(enorm(embed(t))) added to h_proj(hnorm(X_k)) for each of
// the 4 streams, one window-only block with its own ring, then the block's own hc_head and norm and the shared head.
// Rows whose input is the output of another row of the same call run in a later wave.
#include <numeric>
#include <set>

#include "base/error.h"
#include "model/dsv4/dsv4_model.h"

namespace plumb::dsv4 {
namespace {

constexpr kernels::LinearParams kFp8Linear{.quantize_input = true};

}  // namespace

void Dsv4Model::check_draft_rows(std::span<const model::DraftRow> rows, std::span<float> logits) const {
  if (!info_.has_mtp) fail("draft_forward: this model has no MTP block");
  if (logits.size() < rows.size() * size_t(info_.vocab_size))
    fail("draft_forward: logits hold {} floats, {} rows need {}", logits.size(), rows.size(),
         rows.size() * size_t(info_.vocab_size));
  std::vector<int64_t> mtp(size_t(info_.num_slots)), draft(size_t(info_.num_slots)), count(size_t(info_.num_slots));
  for (int32_t s = 0; s < info_.num_slots; ++s) {
    mtp[size_t(s)] = state_->meta(s).mtp_position;
    draft[size_t(s)] = state_->meta(s).draft_position;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const model::DraftRow& r = rows[i];
    check_slot(r.slot, "draft_forward");
    const size_t s = size_t(r.slot);
    if (r.next_token < 0 || r.next_token >= info_.vocab_size)
      fail("draft_forward: row {} has token id {}, outside the vocabulary (0..{})", i, r.next_token,
           info_.vocab_size - 1);
    if (r.position < 0 || r.position >= info_.max_context)
      fail("draft_forward: row {} is at position {}, outside the context (max_context {})", i, r.position,
           info_.max_context);
    if (!r.chained) {
      if (r.position != mtp[s])
        fail("draft_forward: row {} of slot {} is at position {}, but the slot's MTP state continues at {}", i,
             r.slot, r.position, mtp[s]);
      if (!state_->has_x(r.slot, r.position))
        fail("draft_forward: row {} of slot {}: no final hidden state for position {} (held: the last {} positions "
             "the slot ran, below its position {})", i, r.slot, r.position, state_->shape().x_ring_rows(),
             state_->meta(r.slot).position);
      mtp[s] = r.position + 1;
    } else {
      if (draft[s] < 0 || draft[s] != r.position - 1)
        fail("draft_forward: chained row {} of slot {} at position {} needs the draft row at position {} first", i,
             r.slot, r.position, r.position - 1);
      if (r.position - mtp[s] >= info_.max_rows_per_slot)
        fail("draft_forward: chained row {} of slot {} at position {} runs more than max_rows_per_slot ({}) ahead "
             "of the slot's MTP position {}", i, r.slot, r.position, info_.max_rows_per_slot, mtp[s]);
    }
    draft[s] = r.position;
    if (++count[s] > info_.max_rows_per_slot)
      fail("draft_forward: slot {} has more than max_rows_per_slot ({}) rows in one call", r.slot,
           info_.max_rows_per_slot);
  }
}

void Dsv4Model::draft_forward(std::span<const model::DraftRow> rows, std::span<float> logits) {
  check_draft_rows(rows, logits);
  const size_t vocab = size_t(info_.vocab_size);
  size_t begin = 0;
  while (begin < rows.size()) {
    std::set<int32_t> slots;
    size_t end = begin;
    for (; end < rows.size(); ++end) {
      if (rows[end].chained && slots.contains(rows[end].slot)) break;  // needs an output of this wave
      slots.insert(rows[end].slot);
    }
    run_draft_wave(rows.subspan(begin, end - begin), logits.subspan(begin * vocab, (end - begin) * vocab));
    begin = end;
  }
}

void Dsv4Model::run_draft_wave(std::span<const model::DraftRow> rows, std::span<float> logits) {
  backend_->join_lanes();  // a round that threw inside a sublayer may have left side lanes unjoined (else a no-op)
  Workspace ws(forward_->scratch());
  const int64_t n = int64_t(rows.size()), d = config_.hidden_size, hc = config_.hc_mult, streams = hc * d;
  const MtpWeights& w = weights_.blocks[size_t(mtp_block())].mtp;
  LaunchRows launch;
  for (const auto& r : rows) launch.add(r.slot, r.position, r.next_token);

  // Input streams: the target's final streams at the row's position, or the slot's last draft output.
  const kernels::Tensor hidden = ws.act(n, streams);
  std::vector<int64_t> from_target, from_target_dst, from_draft, from_draft_dst;
  for (int64_t i = 0; i < n; ++i) {
    const auto& r = rows[size_t(i)];
    if (r.chained) {
      from_draft.push_back(r.slot);
      from_draft_dst.push_back(i);
    } else {
      from_target.push_back(state_->x_row(r.slot, r.position));
      from_target_dst.push_back(i);
    }
  }
  backend_->copy_rows(state_->x_ring(), from_target, hidden, from_target_dst);
  backend_->copy_rows(state_->draft_out(), from_draft, hidden, from_draft_dst);

  // x'_k = e_proj(enorm(embed(t))) + h_proj(hnorm(x_k)) for each stream k.
  const kernels::Tensor e = ws.act(n, d), en = ws.act(n, d), ep = ws.act(n, d);
  backend_->embed(weights_.embed, launch.tokens, 1, e);
  backend_->rms_norm({config_.rms_norm_eps}, w.enorm, e, en);
  backend_->linear(kFp8Linear, w.e_proj, en, ep);
  const kernels::Tensor hn = ws.act(n * hc, d), hp = ws.act(n * hc, d);
  backend_->rms_norm({config_.rms_norm_eps}, w.hnorm, hidden.reshape(n * hc, d), hn);
  backend_->linear(kFp8Linear, w.h_proj, hn, hp);
  kernels::Tensor x = ws.act(n, streams), spare = ws.act(n, streams);
  backend_->add(hp.reshape(n, streams), ep, x);
  forward_->block(mtp_block(), launch, x, spare);

  // Each slot's last row of the wave is what a chained row continues from.
  std::vector<int64_t> last_row, last_slot;
  for (int64_t i = n - 1; i >= 0; --i) {
    const int32_t slot = rows[size_t(i)].slot;
    if (std::find(last_slot.begin(), last_slot.end(), slot) != last_slot.end()) continue;
    last_row.push_back(i);
    last_slot.push_back(slot);
  }
  backend_->copy_rows(x, last_row, state_->draft_out(), last_slot);
  std::vector<int64_t> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), int64_t(0));
  write_logits(x, all, w.hc_head, w.norm, logits);
  for (const auto& r : rows) {
    SlotMeta& m = state_->meta(r.slot);
    if (!r.chained) m.mtp_position = r.position + 1;
    m.draft_position = r.position;
  }
}

}  // namespace plumb::dsv4
