// The engine serving the tiny DeepSeek-V4 model: MTP drafts (catch-up rows, chained drafts, rejected rows rewound),
// concurrency and prompt-cache snapshots never change a request's tokens (ENGINE.md E1-E3 with the real model's
// state instead of the toy model's).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/engine_harness.h"
#include "tiny_model.h"

namespace plumb::test {
namespace {

using kernels::Numerics;

// Proposes the continuation a stream will have (known from undrafted runs), wrong at a depth that varies with the
// stream's length, so rounds accept some drafts and rewind the rest.
class ReplayDrafter : public engine::Drafter {
 public:
  explicit ReplayDrafter(std::vector<std::vector<int32_t>> futures) : futures_(std::move(futures)) {}
  std::vector<int32_t> propose(uint64_t, std::span<const int32_t> tokens, int32_t max_depth) override {
    for (const auto& full : futures_) {
      if (full.size() < tokens.size() || !std::equal(tokens.begin(), tokens.end(), full.begin())) continue;
      std::vector<int32_t> out;
      const size_t wrong = 1 + tokens.size() % 4;  // 4: no wrong draft within depth 3
      for (size_t d = 0; d < size_t(max_depth) && tokens.size() + d < full.size(); ++d)
        out.push_back(d + 1 == wrong ? (full[tokens.size() + d] + 1) % 1024 : full[tokens.size() + d]);
      return out;
    }
    return {};
  }

 private:
  std::vector<std::vector<int32_t>> futures_;
};

engine::EngineConfig config(int32_t parallel, int32_t drafts) {
  engine::EngineConfig c;
  c.parallel = parallel;
  c.max_rows_per_round = 48;
  c.prefill_chunk = 13;
  c.max_drafts = drafts;
  c.context_drafts = drafts > 0;
  c.adaptive_depth = false;  // always draft as deep as allowed: the most rewinds
  return c;
}

class EngineOnDsv4 : public ::testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override { PLUMB_SKIP_UNLESS_BACKEND(GetParam()); }
  ModelFactory factory() const {
    const ModelCase c = GetParam();
    return [c] { return std::unique_ptr<model::Model>(open_tiny(c, 4, 16, 160)); };
  }
  ModelFactory factory16() const {
    const ModelCase c = GetParam();
    return [c] { return std::unique_ptr<model::Model>(open_tiny(c, 16, 16, 160)); };
  }
};

TEST_P(EngineOnDsv4, DraftsConcurrencyAndPromptCacheKeepTheTokens) {
  auto reqs = varied_requests(5, 1024, 3, 40, 14, 9);
  reqs[0].prompt = {5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6};  // the context drafter finds matches
  reqs[1].prompt = reqs[2].prompt;                            // same prompt, so the prompt cache hits
  reqs[1].prompt.push_back(17);
  std::vector<Outcome> alone;
  for (const auto& r : reqs) alone.push_back(run_alone(factory(), r, config(1, 0)));

  EXPECT_EQ(run_together(factory(), reqs, config(4, 3)), alone) << "concurrent, MTP and context drafts";
  EXPECT_EQ(run_together(factory(), reqs, config(2, 1), {0, 1, 3, 3, 5}), alone) << "staggered, one draft";
  auto cached = config(4, 3);
  cached.cache.budget_bytes = int64_t(64) << 20;
  cached.cache.block_tokens = 8;
  EXPECT_EQ(run_together(factory(), reqs, cached, {0, 0, 4, 4, 6}), alone) << "prompt cache";

  // Drafts that are right up to a varying depth: accepted rows are kept, the rest rewound.
  std::vector<std::vector<int32_t>> futures;
  for (size_t i = 0; i < reqs.size(); ++i) {
    futures.push_back(reqs[i].prompt);
    futures.back().insert(futures.back().end(), alone[i].tokens.begin(), alone[i].tokens.end());
  }
  auto replay = config(4, 3);
  replay.drafter = [futures] { return std::make_unique<ReplayDrafter>(futures); };
  EXPECT_EQ(run_together(factory(), reqs, replay), alone) << "replayed drafts";
  const auto model = factory()();
  engine::Engine eng(*model, replay);
  for (const auto& r : reqs) eng.submit(r);
  eng.run_until_idle();
  EXPECT_GT(eng.counters().drafts_accepted, 0);
  EXPECT_LT(eng.counters().drafts_accepted, eng.counters().drafts_proposed);
}

// E1 on the real model: 16 requests (prompts, lengths, temperatures, top-k/p, seeds, max_tokens all differ) served
// together at --parallel 1, 2, 4 and 16, submitted at once and staggered in a shuffled order, each equal to itself
// served alone; E4/E5: other prefill chunk bounds and a second run change nothing.
TEST_P(EngineOnDsv4, SixteenRequestsEqualTheirSoloRuns) {
  const auto reqs = varied_requests(16, 1024, 2, 40, 12, 21);
  auto solo = config(1, 0);
  std::vector<Outcome> alone;
  for (const auto& r : reqs) alone.push_back(run_alone(factory(), r, solo));
  for (int32_t parallel : {1, 2, 4}) {
    EXPECT_EQ(run_together(factory(), reqs, config(parallel, 0)), alone) << "parallel " << parallel;
  }
  auto wide = config(4, 0);
  wide.prefill_chunk = 5;
  std::vector<int> when(reqs.size());
  std::vector<size_t> order(reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i) {
    when[i] = int((i * 7) % 11);
    order[i] = (i * 5) % reqs.size();
  }
  EXPECT_EQ(run_together(factory(), reqs, wide, when, order), alone) << "staggered, shuffled, chunks of 5";
}

TEST_P(EngineOnDsv4, SixteenSlotsAndCancellationsLeaveTheOthersExact) {
  const auto reqs = varied_requests(16, 1024, 2, 30, 16, 33);
  std::vector<Outcome> alone;
  for (const auto& r : reqs) alone.push_back(run_alone(factory16(), r, config(1, 0)));
  EXPECT_EQ(run_together(factory16(), reqs, config(16, 0)), alone) << "parallel 16";

  const auto model = factory16()();
  engine::Engine eng(*model, config(8, 0));  // 8 slots for 16 requests: half wait
  std::vector<std::shared_ptr<engine::RequestHandle>> h;
  for (const auto& r : reqs) h.push_back(eng.submit(r));
  for (int i = 0; i < 4; ++i) eng.step();
  const std::vector<size_t> cancelled = {1, 4, 6, 10, 15};
  for (size_t i : cancelled) h[i]->cancel();
  eng.run_until_idle();
  int cancelled_count = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const auto got = outcome_of(h[i]->wait_all());
    const bool was_cancelled = std::find(cancelled.begin(), cancelled.end(), i) != cancelled.end();
    if (was_cancelled && got.reason == engine::FinishReason::finish_cancelled) {
      ++cancelled_count;
      continue;
    }
    EXPECT_EQ(got, alone[i]) << "request " << i;
  }
  EXPECT_GT(cancelled_count, 0);
  EXPECT_EQ(eng.counters().running, 0);
  EXPECT_EQ(eng.counters().waiting, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineOnDsv4, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace plumb::test
