// E3 on the toy model: a request resumed from a kept prompt state equals the cold request, cached_tokens
// reports the resumed prefix, eviction keeps results exact, and bad spill files are ignored.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine_harness.h"
#include "test_support.h"
#include "toy_model.h"

namespace plumb::test {
namespace {

engine::EngineConfig cfg(int64_t budget, int parallel = 4, int drafts = 0) {
  engine::EngineConfig c;
  c.parallel = parallel;
  c.prefill_chunk = 8;
  c.max_rows_per_round = 64;
  c.max_drafts = drafts;
  c.adaptive_depth = false;
  c.cache.budget_bytes = budget;
  c.cache.block_tokens = 6;
  return c;
}

engine::GenerationRequest req(std::vector<int32_t> prompt, double temp, int max_tokens = 12) {
  engine::GenerationRequest r;
  r.prompt = std::move(prompt);
  r.sampling.temperature = temp;
  r.sampling.seed = 77;
  r.stop.max_tokens = max_tokens;
  r.stop.ignore_eos = true;
  return r;
}

struct Served {
  Outcome outcome;
  int32_t cached = 0;
};

Served serve_one(engine::Engine& eng, const engine::GenerationRequest& r) {
  auto h = eng.submit(r);
  eng.run_until_idle();
  const auto all = h->wait_all();
  return {outcome_of(all), all.stats.cached_tokens};
}

Outcome cold(const engine::GenerationRequest& r) {
  ToyModel m(97, 4, 1024, 16, true);
  engine::Engine eng(m, cfg(0));
  return serve_one(eng, r).outcome;
}

std::vector<int32_t> seq(int n, int32_t start) {
  std::vector<int32_t> v;
  for (int i = 0; i < n; ++i) v.push_back((start + 7 * i) % 97);
  return v;
}

TEST(PromptCacheToy, ResumesFromSharedPrefixesOfManyLengths) {
  for (int drafts : {0, 3}) {
    ToyModel m(97, 4, 1024, 16, true);
    engine::Engine eng(m, cfg(int64_t(1) << 20, 4, drafts));
    for (int len : {1, 3, 4, 5, 15, 16, 17, 40, 70}) {
      for (double temp : {0.0, 0.9}) {
        const auto base = seq(len, len);
        auto first = req(base, temp);
        auto extended = base;
        for (int32_t t : seq(9, 50 + len)) extended.push_back(t);
        auto second = req(extended, temp);
        const auto a = serve_one(eng, first);
        const auto b = serve_one(eng, second);
        EXPECT_EQ(a.outcome, cold(first)) << "len " << len;
        EXPECT_EQ(b.outcome, cold(second)) << "len " << len;
        EXPECT_GE(b.cached, len) << "the second prompt extends the first, whose state was kept (len " << len << ")";
        EXPECT_LT(b.cached, int32_t(extended.size()));
      }
    }
  }
}

TEST(PromptCacheToy, MultiTurnConversationGrowsCachedTokens) {
  ToyModel m(97, 2, 2048, 16, true);
  engine::Engine eng(m, cfg(int64_t(1) << 20, 2, 2));
  std::vector<int32_t> convo = seq(20, 3);
  int32_t last_cached = -1;
  for (int turn = 0; turn < 5; ++turn) {
    const auto r = req(convo, 0.7, 10);
    const auto got = serve_one(eng, r);
    EXPECT_EQ(got.outcome, cold(r)) << "turn " << turn;
    if (turn > 0) { EXPECT_GT(got.cached, last_cached) << "turn " << turn; }
    last_cached = got.cached;
    // Next turn: the whole conversation so far (reply included), then a new user message.
    convo.insert(convo.end(), got.outcome.tokens.begin(), got.outcome.tokens.end());
    for (int32_t t : seq(5, 11 * turn)) convo.push_back(t);
  }
  EXPECT_GE(last_cached, 60);
}

TEST(PromptCacheToy, ConcurrentResumesAreExact) {
  ToyModel m(97, 8, 1024, 16, true);
  engine::Engine eng(m, cfg(int64_t(1) << 20, 8, 3));
  const auto shared = seq(30, 1);
  serve_one(eng, req(shared, 0.0));
  std::vector<engine::GenerationRequest> reqs;
  for (int i = 0; i < 8; ++i) {
    auto p = shared;
    for (int32_t t : seq(3 + i, 40 + i)) p.push_back(t);
    reqs.push_back(req(p, i % 2 ? 1.0 : 0.0));
  }
  std::vector<std::shared_ptr<engine::RequestHandle>> h;
  for (const auto& r : reqs) h.push_back(eng.submit(r));
  eng.run_until_idle();
  for (size_t i = 0; i < reqs.size(); ++i) {
    const auto all = h[i]->wait_all();
    EXPECT_EQ(outcome_of(all), cold(reqs[i])) << i;
    EXPECT_GE(all.stats.cached_tokens, 30) << i;
  }
}

TEST(PromptCacheToy, TinyBudgetEvictsAndStaysExact) {
  ToyModel m(97, 2, 1024, 16, true);
  engine::Engine eng(m, cfg(400, 2));  // a few hundred bytes: most states are evicted at once
  for (int i = 0; i < 20; ++i) {
    const auto r = req(seq(20 + i % 5, i % 3), 0.5);
    EXPECT_EQ(serve_one(eng, r).outcome, cold(r)) << i;
  }
  EXPECT_GT(eng.counters().cache.evictions, 0);
  EXPECT_LE(eng.counters().cache.bytes_kept, 400);
}

TEST(PromptCacheToy, SpilledStatesComeBackAndBadFilesAreIgnored) {
  ScratchDir dir;
  auto c = cfg(300, 2);
  c.cache.spill_dir = dir.path();
  c.cache.spill_budget_bytes = int64_t(1) << 20;
  c.cache.namespace_key = "toy-model-v1";
  const auto a = req(seq(60, 5), 0.0);
  auto b_prompt = a.prompt;
  b_prompt.push_back(9);
  const auto b = req(b_prompt, 0.0);
  {
    ToyModel m(97, 2, 1024, 16, true);
    engine::Engine eng(m, c);
    serve_one(eng, a);
    for (int i = 0; i < 5; ++i) serve_one(eng, req(seq(30, 40 + i), 0.0));  // push a's states to disk
    EXPECT_GT(eng.counters().cache.spill_writes, 0);
    const auto got = serve_one(eng, b);
    EXPECT_EQ(got.outcome, cold(b));
    EXPECT_GE(got.cached, 60);
    EXPECT_GT(eng.counters().cache.spill_reads, 0);
  }
  // A new engine of the same namespace finds the files; corrupt every one of them first.
  int corrupted = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('\x5a');
    ++corrupted;
  }
  ASSERT_GT(corrupted, 0);
  ToyModel m(97, 2, 1024, 16, true);
  engine::Engine eng(m, c);
  const auto got = serve_one(eng, b);
  EXPECT_EQ(got.outcome, cold(b));
  EXPECT_EQ(got.cached, 0);
  EXPECT_GT(eng.counters().cache.spill_rejects, 0);
  // Another namespace never reads them.
  c.cache.namespace_key = "another-model";
  ToyModel m2(97, 2, 1024, 16, true);
  engine::Engine other(m2, c);
  EXPECT_EQ(serve_one(other, b).cached, 0);
}

}  // namespace
}  // namespace plumb::test
