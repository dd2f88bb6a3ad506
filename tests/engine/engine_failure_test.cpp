// A round that fails on the device (out of memory, a launch error) is an error for the requests in that round,
// never a crash: the engine loop reports it, frees their slots and serves the next requests exactly.
#include <gtest/gtest.h>

#include <atomic>

#include "base/error.h"
#include "engine_harness.h"
#include "test_support.h"
#include "toy_model.h"

namespace plumb::test {
namespace {

// The toy model, with forward() throwing (before touching any state) on chosen launches.
class FailingToyModel : public ToyModel {
 public:
  using ToyModel::ToyModel;
  std::atomic<int> fail_at{-1};  // the launch number that throws
  void forward(std::span<const model::Row> rows, std::span<float> logits) override {
    if (calls_++ == fail_at.load()) fail("out of memory on the device (planted)");
    ToyModel::forward(rows, logits);
  }

 private:
  int calls_ = 0;
};

TEST(EngineFailure, AFailedRoundErrorsItsRequestsAndTheEngineServesOn) {
  const int32_t vocab = 512;
  auto requests = varied_requests(3, vocab, 4, 12, 10, 7);
  // Both failing requests outlive the planted third launch whatever their drawn length.
  requests[0].stop.max_tokens = requests[1].stop.max_tokens = 8;
  engine::EngineConfig cfg;
  cfg.parallel = 2;
  const ModelFactory make = [&] { return std::make_unique<ToyModel>(vocab, 2, 256); };
  const Outcome solo = run_alone(make, requests[2], cfg);

  FailingToyModel model(vocab, 2, 256);
  model.fail_at = 2;  // the third launch: both requests are mid-way
  engine::Engine eng(model, cfg);
  // Submitted before the loop starts, so both are in the first round and mid-way at the third launch.
  auto a = eng.submit(requests[0]);
  auto b = eng.submit(requests[1]);
  eng.start();
  const auto ea = a->wait_all(), eb = b->wait_all();
  EXPECT_EQ(ea.reason, engine::FinishReason::finish_error);
  EXPECT_EQ(eb.reason, engine::FinishReason::finish_error);
  EXPECT_NE(ea.error.find("out of memory"), std::string::npos) << ea.error;
  EXPECT_NE(eb.error.find("out of memory"), std::string::npos) << eb.error;
  // The slots came back and the next request equals its run alone.
  auto c = eng.submit(requests[2]);
  EXPECT_EQ(outcome_of(c->wait_all()), solo);
  eng.stop();
  EXPECT_EQ(eng.counters().running, 0);
}

}  // namespace
}  // namespace plumb::test
