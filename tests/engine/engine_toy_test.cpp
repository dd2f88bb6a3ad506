// Engine exactness (E1, E4, E5), cancellation, admission and stopping, on the toy model (fast). The same
// properties are tested on the DeepSeek-V4 tiny model in tests/engine_dsv4.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "base/error.h"
#include "engine_harness.h"
#include "toy_model.h"

namespace plumb::test {
namespace {

ModelFactory toy(int32_t slots = 16) {
  return [slots] { return std::make_unique<ToyModel>(97, slots, 512, 64); };
}

engine::EngineConfig config(int parallel, int chunk = 8, int rows = 64) {
  engine::EngineConfig c;
  c.parallel = parallel;
  c.prefill_chunk = chunk;
  c.max_rows_per_round = rows;
  return c;
}

TEST(EngineToy, ConcurrentEqualsAloneAtEveryParallelism) {
  const auto reqs = varied_requests(16, 97, 1, 40, 30);
  std::vector<Outcome> alone;
  for (const auto& r : reqs) alone.push_back(run_alone(toy(), r, config(1)));
  for (int parallel : {1, 2, 4, 16}) {
    const auto together = run_together(toy(), reqs, config(parallel));
    for (size_t i = 0; i < reqs.size(); ++i) EXPECT_EQ(together[i], alone[i]) << "request " << i << " parallel " << parallel;
  }
}

TEST(EngineToy, StaggeredAndShuffledAdmissionChangeNothing) {
  const auto reqs = varied_requests(16, 97, 1, 40, 30, 7);
  std::vector<Outcome> alone;
  for (const auto& r : reqs) alone.push_back(run_alone(toy(), r, config(1)));
  std::mt19937 rng(3);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<int> when(reqs.size());
    for (auto& w : when) w = int(rng() % 20);
    std::vector<size_t> order(reqs.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const auto together = run_together(toy(), reqs, config(4, 5, 16), when, order);
    for (size_t i = 0; i < reqs.size(); ++i) EXPECT_EQ(together[i], alone[i]) << "request " << i;
  }
}

TEST(EngineToy, PrefillChunkingChangesNothing) {
  const auto reqs = varied_requests(6, 97, 30, 60, 20, 11);
  for (const auto& r : reqs) {
    const auto base = run_alone(toy(), r, config(1, 64));
    for (int chunk : {1, 3, 7}) EXPECT_EQ(run_alone(toy(), r, config(1, chunk)), base) << "chunk " << chunk;
  }
}

TEST(EngineToy, TwoRunsAreEqual) {
  const auto reqs = varied_requests(8, 97, 1, 30, 20, 5);
  EXPECT_EQ(run_together(toy(), reqs, config(4)), run_together(toy(), reqs, config(4)));
}

TEST(EngineToy, CancellingSomeLeavesTheOthersExactAndFreesSlots) {
  const auto reqs = varied_requests(16, 97, 5, 30, 40, 9);
  std::vector<Outcome> alone;
  for (const auto& r : reqs) alone.push_back(run_alone(toy(), r, config(1)));

  auto model = toy()();
  engine::Engine eng(*model, config(8, 4, 32));  // 8 slots for 16 requests: half wait in the queue
  std::vector<std::shared_ptr<engine::RequestHandle>> h;
  for (const auto& r : reqs) h.push_back(eng.submit(r));
  for (int i = 0; i < 6; ++i) eng.step();
  const std::vector<size_t> cancelled = {0, 3, 5, 9, 14};  // running ones and queued ones
  for (size_t i : cancelled) h[i]->cancel();
  eng.run_until_idle();
  for (size_t i = 0; i < reqs.size(); ++i) {
    const auto got = outcome_of(h[i]->wait_all());
    if (std::find(cancelled.begin(), cancelled.end(), i) != cancelled.end()) {
      if (got.reason != engine::FinishReason::finish_cancelled) {
        EXPECT_EQ(got, alone[i]) << "request " << i << " finished before its cancel; it must still be exact";
      }
    } else {
      EXPECT_EQ(got, alone[i]) << "request " << i;
    }
  }
  EXPECT_EQ(eng.counters().running, 0);
  EXPECT_EQ(eng.counters().waiting, 0);
}

TEST(EngineToy, RefusesRequestsPastTheContext) {
  auto model = toy()();
  engine::Engine eng(*model, config(2));
  engine::GenerationRequest r;
  r.prompt.assign(500, 3);
  r.stop.max_tokens = 13;  // 513 > 512
  try {
    eng.submit(r);
    FAIL() << "expected a context error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("maximum context length is 512"), std::string::npos) << e.what();
  }
  r.stop.max_tokens = 12;
  EXPECT_NO_THROW(eng.submit(r));
  r.prompt.clear();
  EXPECT_THROW(eng.submit(r), Error);
  r.prompt = {97};  // outside the vocabulary
  EXPECT_THROW(eng.submit(r), Error);
}

TEST(EngineToy, StopsOnEosAndStopIdsAndMaxTokens) {
  const auto reqs = varied_requests(1, 97, 10, 10, 50, 21);
  auto base = run_alone(toy(), reqs[0], config(1));
  ASSERT_GE(base.tokens.size(), 5u);
  auto r = reqs[0];
  r.stop.stop_token_ids = {base.tokens[3]};
  auto stopped = run_alone(toy(), r, config(1));
  const size_t first = size_t(std::find(base.tokens.begin(), base.tokens.end(), base.tokens[3]) - base.tokens.begin());
  EXPECT_EQ(stopped.tokens, std::vector<int32_t>(base.tokens.begin(), base.tokens.begin() + long(first) + 1));
  EXPECT_EQ(stopped.reason, engine::FinishReason::finish_stop);
  EXPECT_EQ(base.reason, engine::FinishReason::finish_length);
  EXPECT_EQ(int(base.tokens.size()), reqs[0].stop.max_tokens);
}

// Letters as text: token id -> one character.
class LetterStream : public engine::TextStream {
 public:
  std::string push(int32_t id) override { return std::string(1, char('a' + id % 26)); }
  std::string flush() override { return {}; }
};

TEST(EngineToy, StopStringsCutTheTextAndHoldBackPrefixes) {
  auto reqs = varied_requests(1, 97, 10, 10, 60, 33);
  auto model = toy()();
  engine::Engine plain(*model, config(1), [] { return std::make_unique<LetterStream>(); });
  auto h = plain.submit(reqs[0]);
  plain.run_until_idle();
  const auto all = h->wait_all();
  ASSERT_GE(all.text.size(), 8u);
  const std::string stop = all.text.substr(4, 3);
  const size_t at = all.text.find(stop);

  auto model2 = toy()();
  engine::Engine eng(*model2, config(1), [] { return std::make_unique<LetterStream>(); });
  auto r = reqs[0];
  r.stop.stop_strings = {stop};
  auto h2 = eng.submit(r);
  eng.run_until_idle();
  std::string streamed;
  bool finished = false;
  engine::FinishReason reason{};
  while (auto ev = h2->next_event(std::chrono::milliseconds(10))) {
    streamed += ev->text;
    if (ev->finished) {
      finished = true;
      reason = ev->reason;
    }
  }
  EXPECT_TRUE(finished);
  EXPECT_EQ(reason, engine::FinishReason::finish_stop);
  EXPECT_EQ(streamed, all.text.substr(0, at));
}

TEST(StopStringMatcher, HoldsBackAPossibleStart) {
  engine::StopStringMatcher m({"END"});
  EXPECT_EQ(m.push("abcE"), "abc");
  EXPECT_EQ(m.push("N"), "");
  EXPECT_EQ(m.push("x"), "ENx");
  EXPECT_EQ(m.push("yEND tail"), "y");
  EXPECT_TRUE(m.matched());
}

}  // namespace
}  // namespace plumb::test
