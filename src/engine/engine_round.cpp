// One round of the engine: plan rows (decode rows with their drafts first, then prompt chunks round-robin),
// run one launch, verify each stream's drafts against its own samples, rewind what was rejected, and run the
// MTP head to catch up on accepted positions and propose the next round's drafts.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "base/error.h"
#include "engine/engine.h"

namespace plumb::engine {

struct Engine::RoundRows {
  std::vector<model::Row> rows;
  struct Stream {
    Sequence* seq;
    size_t first_row;
    int32_t drafts;  // decode streams: draft rows after the next-token row
    bool decode;
  };
  std::vector<Stream> streams;
  int64_t prompt_rows = 0;
};

int32_t Engine::draft_room(const Sequence& seq) const {
  if (!drafting_on() || !seq.request.draft) return 0;
  const int64_t left_tokens = int64_t(seq.request.stop.max_tokens) - int64_t(seq.generated.size()) - 1;
  const int64_t left_context = model_.info().max_context - int64_t(seq.tokens.size()) - 1;
  return int32_t(std::max<int64_t>(0, std::min({int64_t(config_.max_drafts), left_tokens, left_context,
                                                int64_t(model_.info().max_rows_per_slot) - 1})));
}

void Engine::plan_round(RoundRows& plan) {
  const double round_estimate = target_cost_.ready() ? target_cost_.predict(int64_t(running_.size())) : 0.0;
  const double extra_row = target_cost_.per_row() + mtp_cost_.per_row();
  for (auto& seq : running_) {
    if (seq->state != SequenceState::seq_decode) continue;
    const int32_t budget = config_.max_rows_per_round - int32_t(plan.rows.size());
    if (budget <= 0) break;
    int32_t depth = std::min(draft_room(*seq), budget - 1);
    std::vector<int32_t> drafts;
    if (depth > 0 && drafter_) {
      drafts = drafter_->propose(seq->handle->id(), seq->tokens, depth);
    } else if (depth > 0) {
      if (config_.adaptive_depth) depth = seq->depth.choose(depth, round_estimate, extra_row);
      if (config_.context_drafts) drafts = context_draft(seq->tokens, depth);
      if (drafts.empty()) drafts = seq->drafts;
    }
    if (int32_t(drafts.size()) > depth) drafts.resize(size_t(std::max(depth, 0)));
    const size_t first = plan.rows.size();
    const int64_t pos = int64_t(seq->tokens.size()) - 1;
    plan.rows.push_back({seq->slot, pos, seq->tokens.back(), true});
    for (size_t i = 0; i < drafts.size(); ++i) plan.rows.push_back({seq->slot, pos + 1 + int64_t(i), drafts[i], true});
    seq->drafts = std::move(drafts);
    plan.streams.push_back({seq.get(), first, int32_t(seq->drafts.size()), true});
  }
  const size_t n_running = running_.size();
  for (size_t k = 0; k < n_running; ++k) {
    Sequence& seq = *running_[(prefill_cursor_ + k) % n_running];
    if (seq.state != SequenceState::seq_prefill) continue;
    const int64_t budget = config_.max_rows_per_round - int64_t(plan.rows.size());
    if (budget <= 0) break;
    int64_t n = std::min({seq.prompt_size() - seq.prompt_done, int64_t(config_.prefill_chunk), budget});
    // A chunk ends at the next keep point so the state there can be kept (chunking never changes results).
    for (int64_t p : seq.keep_points)
      if (p > seq.prompt_done && p < seq.prompt_done + n) n = p - seq.prompt_done;
    const size_t first = plan.rows.size();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t pos = seq.prompt_done + i;
      plan.rows.push_back({seq.slot, pos, seq.request.prompt[size_t(pos)], pos == seq.prompt_size() - 1});
    }
    seq.prompt_done += n;
    plan.prompt_rows += n;
    plan.streams.push_back({&seq, first, 0, false});
  }
  prefill_cursor_ = n_running ? (prefill_cursor_ + 1) % n_running : 0;
}

void Engine::verify_stream(Sequence& seq, const RoundRows& plan, size_t first_row, int32_t drafts) {
  const size_t vocab = size_t(model_.info().vocab_size);
  if (drafts > 0) {
    seq.stats.drafts_proposed += drafts;
    if (seq.stats.accepted_by_depth.size() < size_t(drafts)) seq.stats.accepted_by_depth.resize(size_t(drafts), 0);
  }
  int32_t accepted = 0;
  for (int32_t i = 0; i <= drafts; ++i) {
    const size_t r = first_row + size_t(i);
    std::span<const float> row_logits(logits_.data() + r * vocab, vocab);
    const int32_t token = sample_token(row_logits, seq.request.sampling, seq.seed, plan.rows[r].position + 1);
    const bool draft_accepted = i < drafts && token == seq.drafts[size_t(i)];
    // Counted before accept_token: a token that finishes the stream reports the stats as they are then.
    if (draft_accepted) {
      ++accepted;
      seq.stats.drafts_accepted++;
      seq.stats.accepted_by_depth[size_t(i)]++;
    }
    if (!accept_token(seq, token, row_logits) || !draft_accepted) break;
  }
  if (drafts > 0) seq.depth.observe(drafts, accepted);
  seq.drafts.clear();
  // Keep the state of the next-token row and the accepted drafts; forget the rejected rows. A stream that
  // finished here without keeping its state has already given its slot back (slot -1): nothing to rewind.
  if (accepted < drafts && seq.slot >= 0) model_.rewind(seq.slot, plan.rows[first_row].position + 1 + accepted);
}

void Engine::run_mtp(std::vector<Sequence*>& streams, bool prompt_only) {
  const size_t vocab = size_t(model_.info().vocab_size);
  // Catch-up rows: every position whose next token is now known, so the MTP state follows the sequence.
  // prompt_only: just the positions whose next token is a prompt token (the state kept at a prompt's end
  // must not depend on the sampled reply).
  std::vector<model::DraftRow> rows;
  std::vector<std::pair<Sequence*, size_t>> proposer;  // stream, its last catch-up row
  for (Sequence* seq : streams) {
    const int64_t in_state = model_.slot_position(seq->slot);
    const int64_t known = prompt_only ? seq->prompt_size() - 1 : int64_t(seq->tokens.size()) - 1;
    const int64_t end = std::min<int64_t>(in_state, known);
    for (int64_t q = seq->mtp_done; q < end; ++q)
      rows.push_back({seq->slot, q, seq->tokens[size_t(q + 1)], false});
    seq->mtp_done = std::max(seq->mtp_done, end);
    if (!prompt_only && seq->state == SequenceState::seq_decode && end == int64_t(seq->tokens.size()) - 1 &&
        !rows.empty() && rows.back().slot == seq->slot && draft_room(*seq) > 0)
      proposer.push_back({seq, rows.size() - 1});
  }
  if (rows.empty()) return;
  draft_logits_.resize(rows.size() * vocab);
  auto t0 = std::chrono::steady_clock::now();
  model_.draft_forward(rows, draft_logits_);
  mtp_cost_.observe(int64_t(rows.size()), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  // Draft chains: the first draft from the last catch-up row, deeper ones from chained MTP rows.
  std::vector<std::pair<Sequence*, int32_t>> chain;  // stream, depth wanted
  for (auto [seq, r] : proposer) {
    const int32_t want = draft_room(*seq);
    std::span<const float> l(draft_logits_.data() + r * vocab, vocab);
    seq->drafts = {sample_token(l, seq->request.sampling, seq->seed, rows[r].position + 2)};
    if (want > 1) chain.push_back({seq, want});
  }
  for (int32_t depth = 2; !chain.empty(); ++depth) {
    std::vector<model::DraftRow> next;
    // The row carrying draft depth-1 (the token at tokens.size() - 2 + depth) sits one position before it.
    for (auto [seq, want] : chain)
      next.push_back({seq->slot, int64_t(seq->tokens.size()) - 3 + depth, seq->drafts.back(), true});
    draft_logits_.resize(next.size() * vocab);
    model_.draft_forward(next, draft_logits_);
    std::vector<std::pair<Sequence*, int32_t>> still;
    for (size_t i = 0; i < chain.size(); ++i) {
      auto [seq, want] = chain[i];
      std::span<const float> l(draft_logits_.data() + i * vocab, vocab);
      seq->drafts.push_back(sample_token(l, seq->request.sampling, seq->seed, next[i].position + 2));
      if (int32_t(seq->drafts.size()) < want) still.push_back({seq, want});
    }
    chain = std::move(still);
  }
}

void Engine::keep_state(Sequence& seq) {
  // The slot holds tokens [0, held): the prompt at its end, a prefix at a keep point, prompt + reply at a finish.
  const int64_t held = model_.slot_position(seq.slot);
  PLUMB_CHECK(held <= int64_t(seq.tokens.size()));
  std::vector<int32_t> prefix(seq.tokens.begin(), seq.tokens.begin() + held);
  if (prefix.empty() || cache_.contains(prefix)) return;
  auto state = std::make_shared<CachedState>();
  state->tokens = std::move(prefix);
  state->snapshot = model_.snapshot(seq.slot);
  state->mtp_done = std::min(seq.mtp_done, held);
  cache_.insert(std::move(state));
}

bool Engine::step() {
  drop_cancelled();
  admit_waiting();
  if (running_.empty()) return false;

  RoundRows plan;
  plan_round(plan);
  if (plan.rows.empty()) return false;

  const size_t vocab = size_t(model_.info().vocab_size);
  logits_.resize(plan.rows.size() * vocab);
  const auto t0 = std::chrono::steady_clock::now();
  model_.forward(plan.rows, logits_);
  target_cost_.observe(int64_t(plan.rows.size()),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  int64_t sampled_before = 0, sampled_after = 0;
  for (auto& seq : running_) sampled_before += int64_t(seq->generated.size());
  std::vector<Sequence*> mtp_streams, keep_prompt;
  for (const auto& s : plan.streams) {
    Sequence& seq = *s.seq;
    if (s.decode) {
      verify_stream(seq, plan, s.first_row, s.drafts);
    } else {
      if (!seq.keep_points.empty() && seq.keep_points.front() == seq.prompt_done) {
        seq.keep_points.erase(seq.keep_points.begin());
        keep_prompt.push_back(&seq);
      }
      if (seq.prompt_done == seq.prompt_size()) {
        // The prompt's last row ran: sample the first token.
        if (cache_.enabled()) keep_prompt.push_back(&seq);
        seq.state = SequenceState::seq_decode;
        verify_stream(seq, plan, s.first_row + size_t(seq.prompt_size() - 1 - plan.rows[s.first_row].position), 0);
      }
    }
    if ((seq.state != SequenceState::seq_done || seq.keep_at_finish) && mtp_on()) mtp_streams.push_back(&seq);
  }
  if (!keep_prompt.empty()) {
    // States kept inside or at the end of a prompt hold the prompt alone (not the sampled reply).
    if (mtp_on()) run_mtp(keep_prompt, true);
    for (Sequence* seq : keep_prompt) keep_state(*seq);
  }
  if (!mtp_streams.empty()) run_mtp(mtp_streams, false);
  for (auto& seq : running_) {
    sampled_after += int64_t(seq->generated.size());
    if (seq->keep_at_finish) {
      keep_state(*seq);
      seq->keep_at_finish = false;
      seq->slot = -1;
    }
  }

  std::erase_if(running_, [](const auto& s) { return s->state == SequenceState::seq_done; });
  running_count_ = int32_t(running_.size());
  std::lock_guard lock(counters_mutex_);
  counters_.rounds++;
  counters_.rows += int64_t(plan.rows.size());
  counters_.prompt_tokens += plan.prompt_rows;
  counters_.generation_tokens += sampled_after - sampled_before;
  return true;
}

}  // namespace plumb::engine
