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

INSTANTIATE_TEST_SUITE_P(Backends, EngineOnDsv4, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace plumb::test
