// E2 on the toy model: drafted output equals "draft": false output, with drafters that are always right,
// wrong at a chosen depth, copying from context, and the (toy) MTP head; acceptance counters add up.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/drafts.h"
#include "engine_harness.h"
#include "toy_model.h"

namespace plumb::test {
namespace {

ModelFactory toy_mtp() {
  return [] { return std::make_unique<ToyModel>(97, 16, 1024, 16, true); };
}

engine::EngineConfig cfg(int parallel, int drafts) {
  engine::EngineConfig c;
  c.parallel = parallel;
  c.prefill_chunk = 8;
  c.max_rows_per_round = 128;
  c.max_drafts = drafts;
  c.adaptive_depth = false;
  return c;
}

std::vector<engine::GenerationRequest> no_draft(std::vector<engine::GenerationRequest> reqs) {
  for (auto& r : reqs) r.draft = false;
  return reqs;
}

// Proposes the stream's known future (from a run without drafts), optionally wrong at one depth.
class ReplayDrafter : public engine::Drafter {
 public:
  ReplayDrafter(std::map<uint64_t, std::vector<int32_t>> futures, int wrong_depth)
      : futures_(std::move(futures)), wrong_depth_(wrong_depth) {}
  std::vector<int32_t> propose(uint64_t id, std::span<const int32_t> tokens, int32_t max_depth) override {
    const auto& full = futures_.at(id);  // prompt + completion of the undrafted run
    std::vector<int32_t> out;
    for (int32_t d = 0; d < max_depth && tokens.size() + size_t(d) < full.size(); ++d) {
      int32_t t = full[tokens.size() + size_t(d)];
      if (d + 1 == wrong_depth_) t = (t + 1) % 97;
      out.push_back(t);
    }
    return out;
  }

 private:
  std::map<uint64_t, std::vector<int32_t>> futures_;
  int wrong_depth_;
};

struct Runs {
  std::vector<Outcome> outcomes;
  int64_t proposed = 0, accepted = 0;
};

Runs serve(const ModelFactory& make, const std::vector<engine::GenerationRequest>& reqs, engine::EngineConfig c) {
  auto model = make();
  engine::Engine eng(*model, c);
  std::vector<std::shared_ptr<engine::RequestHandle>> h;
  for (const auto& r : reqs) h.push_back(eng.submit(r));
  eng.run_until_idle();
  Runs out;
  for (auto& x : h) {
    const auto all = x->wait_all();
    out.outcomes.push_back(outcome_of(all));
    out.proposed += all.stats.drafts_proposed;
    out.accepted += all.stats.drafts_accepted;
  }
  return out;
}

TEST(DraftsToy, ReplayedFutureIsAllAcceptedAndWrongDraftsAreRejectedAtEveryDepth) {
  const auto reqs = varied_requests(8, 97, 3, 20, 40, 17);
  const auto base = serve(toy_mtp(), no_draft(reqs), cfg(4, 4));
  EXPECT_EQ(base.proposed, 0);
  std::map<uint64_t, std::vector<int32_t>> futures;
  for (size_t i = 0; i < reqs.size(); ++i) {
    auto full = reqs[i].prompt;
    full.insert(full.end(), base.outcomes[i].tokens.begin(), base.outcomes[i].tokens.end());
    futures[i + 1] = full;  // request ids count from 1 in submission order
  }
  for (int wrong = 0; wrong <= 4; ++wrong) {
    for (int parallel : {1, 4}) {
      auto c = cfg(parallel, 4);
      c.drafter = [&] { return std::make_unique<ReplayDrafter>(futures, wrong); };
      const auto got = serve(toy_mtp(), reqs, c);
      EXPECT_EQ(got.outcomes, base.outcomes) << "wrong at depth " << wrong << " parallel " << parallel;
      EXPECT_GT(got.proposed, 0);
      if (wrong == 0) { EXPECT_EQ(got.accepted, got.proposed); }
      if (wrong == 1) { EXPECT_EQ(got.accepted, 0); }
      if (wrong > 1) {
        EXPECT_GT(got.accepted, 0);
        EXPECT_LT(got.accepted, got.proposed);
      }
    }
  }
}

TEST(DraftsToy, MtpAndContextDraftsNeverChangeTokens) {
  auto reqs = varied_requests(12, 97, 3, 30, 50, 23);
  // A repetitive prompt gives the context drafter matches.
  reqs[0].prompt = {5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6};
  const auto base = serve(toy_mtp(), no_draft(reqs), cfg(4, 3));
  for (int parallel : {1, 3, 12}) {
    auto c = cfg(parallel, 3);
    const auto got = serve(toy_mtp(), reqs, c);
    EXPECT_EQ(got.outcomes, base.outcomes) << "parallel " << parallel;
    EXPECT_GT(got.proposed, 0);
    EXPECT_GT(got.accepted, 0);
    c.adaptive_depth = true;
    EXPECT_EQ(serve(toy_mtp(), reqs, c).outcomes, base.outcomes);
  }
}

// Proposes the stream's known future and then keeps going past its end (as a drafter that cannot know the
// stream stops there would).
class OverrunDrafter : public engine::Drafter {
 public:
  explicit OverrunDrafter(std::vector<int32_t> full) : full_(std::move(full)) {}
  std::vector<int32_t> propose(uint64_t, std::span<const int32_t> tokens, int32_t max_depth) override {
    std::vector<int32_t> out;
    for (int32_t d = 0; d < max_depth; ++d) {
      const size_t at = tokens.size() + size_t(d);
      out.push_back(at < full_.size() ? full_[at] : 1);
    }
    return out;
  }

 private:
  std::vector<int32_t> full_;
};

TEST(DraftsToy, StreamStoppingInsideItsDraftsFinishesCleanly) {
  // A token first sampled at index >= 4 of an undrafted run becomes the stop token; the drafter proposes past
  // it, so the stream stops while later drafts are still in the round (with the prompt cache off, its slot is
  // already free).
  auto reqs = varied_requests(1, 97, 6, 6, 30, 31);
  reqs[0].stop.max_tokens = 30;
  const auto free_run = serve(toy_mtp(), no_draft(reqs), cfg(1, 4));
  const auto& t = free_run.outcomes[0].tokens;
  size_t k = 4;
  while (k < t.size() && std::find(t.begin(), t.begin() + ptrdiff_t(k), t[k]) != t.begin() + ptrdiff_t(k)) ++k;
  ASSERT_LT(k, t.size());
  reqs[0].stop.ignore_eos = false;
  reqs[0].stop.stop_token_ids = {t[k]};
  const auto base = serve(toy_mtp(), no_draft(reqs), cfg(1, 4));
  ASSERT_EQ(base.outcomes[0].reason, engine::FinishReason::finish_stop);
  ASSERT_EQ(base.outcomes[0].tokens.size(), k + 1);
  auto full = reqs[0].prompt;
  full.insert(full.end(), base.outcomes[0].tokens.begin(), base.outcomes[0].tokens.end());
  // Eight drafts a round: the stop token (at most the second round's eighth) always has drafts after it.
  auto c = cfg(1, 8);
  c.drafter = [&] { return std::make_unique<OverrunDrafter>(full); };
  const auto got = serve(toy_mtp(), reqs, c);
  EXPECT_EQ(got.outcomes, base.outcomes);
  EXPECT_GT(got.proposed, got.accepted);
  EXPECT_EQ(got.accepted, int64_t(k));  // drafts for tokens 1..k were right; the stop token is token k
}

TEST(ContextDraft, CopiesWhatFollowedTheLatestMatch) {
  const std::vector<int32_t> t = {1, 2, 3, 9, 9, 1, 2, 3, 4, 5, 1, 2, 3};
  EXPECT_EQ(engine::context_draft(t, 3), (std::vector<int32_t>{4, 5, 1}));
  EXPECT_EQ(engine::context_draft(t, 1), (std::vector<int32_t>{4}));
  EXPECT_TRUE(engine::context_draft(std::vector<int32_t>{1, 2, 3, 4}, 3).empty());
}

TEST(DraftDepthPolicy, DraftsOnlyWhenItPays) {
  engine::DraftDepthPolicy good(0.9), bad(0.05);
  EXPECT_GT(good.choose(4, 0.010, 0.001), 0);  // cheap rows, likely accepted
  EXPECT_EQ(bad.choose(4, 0.010, 0.001), 0);   // rarely accepted
  EXPECT_EQ(good.choose(4, 0.010, 0.020), 0);  // each extra row costs two rounds
  engine::DraftDepthPolicy learn(0.5);
  for (int i = 0; i < 50; ++i) learn.observe(3, 0);
  EXPECT_LT(learn.acceptance(), 0.05);
}

}  // namespace
}  // namespace plumb::test
