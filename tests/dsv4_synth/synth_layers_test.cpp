// The layer cells of `plumb synth` on the CPU backend at the tiny model's widths: every cell runs, the same-experts
// floor equals a count from the tensor plan, and the round weighs each kind by the tiny config's layer counts.
#include <gmock/gmock.h>

#include <map>
#include <tuple>

#include "base/error.h"
#include "bench/synth_layers.h"
#include "kernels/backend.h"
#include "model/dsv4/tensor_plan.h"
#include "model/dsv4/tiny_checkpoint.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using bench::Routing;
using ::testing::HasSubstr;

constexpr double kBandwidth = 1e10;

// TinySpec{}: compress_ratios {0, 4, 16, 4, 16, 0}, 2 hash layers, 1 window-only MTP block. By hand: layer 0 window
// hash, 1 CSA hash, 2 and 4 HCA top-k, 3 CSA top-k, 5 window top-k (as is the MTP block).
struct KindByHand {
  const char* label;
  int64_t main_layers, mtp_blocks, first_layer;
};
const KindByHand kTinyKinds[] = {{"window hash", 1, 0, 0},
                                 {"CSA/4 hash", 1, 0, 1},
                                 {"HCA/16 top-k", 2, 0, 2},
                                 {"CSA/4 top-k", 1, 0, 3},
                                 {"window top-k", 1, 1, 5}};

// The bytes a call of layer `layer` reads besides its routed experts, and one routed expert's, from the plan.
std::pair<uint64_t, uint64_t> planned_bytes(const dsv4::Config& config, int64_t layer) {
  uint64_t fixed = 0, expert = 0;
  for (const dsv4::PlannedTensor& t : dsv4::plan_tensors(config)) {
    if (t.block != layer) continue;
    if (t.expert == 0) expert += t.nbytes();
    if (t.expert < 0 && t.kind != dsv4::TensorKind::hash_table) fixed += t.nbytes();
  }
  return {fixed, expert};
}

class SynthLayers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    config_ = new dsv4::Config(dsv4::tiny_config(dsv4::TinySpec{}));
    auto backend = kernels::make_host_backend(kernels::Numerics::release);
    result_ = new bench::LayerBenchResult(bench::run_layer_bench(
        *config_, *backend,
        {.rows = {1, 2}, .repeats = 2, .context = 40, .distinct_experts = 3, .bandwidth = kBandwidth, .say = {}}));
  }
  static void TearDownTestSuite() {
    delete result_;
    delete config_;
  }
  static dsv4::Config* config_;
  static bench::LayerBenchResult* result_;
};
dsv4::Config* SynthLayers::config_ = nullptr;
bench::LayerBenchResult* SynthLayers::result_ = nullptr;

TEST_F(SynthLayers, KindsAreTheTinyConfigsCountedByHand) {
  ASSERT_EQ(result_->kinds.size(), std::size(kTinyKinds));
  for (size_t i = 0; i < std::size(kTinyKinds); ++i) {
    EXPECT_EQ(result_->kinds[i].label(), kTinyKinds[i].label);
    EXPECT_EQ(result_->kinds[i].main_layers, kTinyKinds[i].main_layers) << kTinyKinds[i].label;
    EXPECT_EQ(result_->kinds[i].mtp_blocks, kTinyKinds[i].mtp_blocks) << kTinyKinds[i].label;
  }
}

TEST_F(SynthLayers, EveryCellRanOnce) {
  std::map<std::tuple<size_t, int64_t, int64_t, Routing>, int> seen;
  for (const bench::LayerCell& c : result_->cells) {
    ++seen[{c.kind, c.slots, c.rows_per_slot, c.routing}];
    EXPECT_GT(c.seconds, 0.0);
    EXPECT_GT(c.bytes, 0.0);
    EXPECT_EQ(c.floor_seconds, c.bytes / kBandwidth);
  }
  EXPECT_EQ(result_->cells.size(), std::size(kTinyKinds) * 3 * 2);
  for (size_t k = 0; k < std::size(kTinyKinds); ++k)
    for (Routing r : {Routing::as_drawn, Routing::same_experts})
      for (auto [slots, per_slot] : {std::pair<int64_t, int64_t>{1, 1}, {1, 2}, {4, 1}})
        EXPECT_EQ((seen[{k, slots, per_slot, r}]), 1) << kTinyKinds[k].label << " " << slots << "x" << per_slot;
}

// The same-experts cells read the block's planned tensors but the routed experts and hash table, plus the two
// experts every row shares (TinySpec{} routes each token to 2 experts; the construction picks the same 2 for all).
TEST_F(SynthLayers, SameExpertsFloorIsThePlannedBytesPlusTwoExperts) {
  ASSERT_EQ(dsv4::TinySpec{}.experts_per_token, 2);
  for (const bench::LayerCell& c : result_->cells) {
    if (c.routing != Routing::same_experts) continue;
    const auto [fixed, expert] = planned_bytes(*config_, kTinyKinds[c.kind].first_layer);
    EXPECT_EQ(c.bytes, double(fixed + 2 * expert)) << kTinyKinds[c.kind].label << " " << c.slots << "x"
                                                   << c.rows_per_slot;
    EXPECT_EQ(c.expert_buffers, 2.0);
  }
}

// As drawn, a call reads between 1 and min(D, rows x 2) expert buffers; the floor is linear in them.
TEST_F(SynthLayers, AsDrawnFloorCountsTheBuffersRead) {
  for (const bench::LayerCell& c : result_->cells) {
    if (c.routing != Routing::as_drawn) continue;
    const auto [fixed, expert] = planned_bytes(*config_, kTinyKinds[c.kind].first_layer);
    EXPECT_GE(c.expert_buffers, 1.0);
    EXPECT_LE(c.expert_buffers, double(std::min<int64_t>(3, c.slots * c.rows_per_slot * 2)));
    EXPECT_NEAR(c.bytes, double(fixed) + c.expert_buffers * double(expert), 1e-9 * c.bytes);
  }
}

// Every layer kind runs ops of all four classes (linears, experts, attention, glue), so each cell's class times
// are positive wall times of its traced calls; a class mapping that lost one would leave a zero.
TEST_F(SynthLayers, EveryCellTimesEachDispatchClass) {
  for (const bench::LayerCell& c : result_->cells)
    for (size_t k = 0; k < kernels::kOpClasses; ++k)
      EXPECT_GT(c.class_seconds[k], 0.0) << kTinyKinds[c.kind].label << " " << kernels::op_class_name(kernels::OpClass(k));
  EXPECT_THAT(result_->op_table, HasSubstr("attention"));
  EXPECT_THAT(result_->op_table, HasSubstr("routed_experts"));
}

// The host's share is measured inside each timed call, so it is positive and never more than the call's time
// (each repeat's host time is at most its total, hence so are the medians).
TEST_F(SynthLayers, HostTimeIsPartOfTheCall) {
  for (const bench::LayerCell& c : result_->cells) {
    EXPECT_GT(c.host_seconds, 0.0) << kTinyKinds[c.kind].label;
    EXPECT_LE(c.host_seconds, c.seconds) << kTinyKinds[c.kind].label;
  }
}

TEST_F(SynthLayers, RoundWeighsEachKindByItsLayerCount) {
  ASSERT_EQ(result_->rounds.size(), 12u);  // six summed, then the same six in one flush
  for (const bench::RoundCell& r : result_->rounds) {
    if (r.one_flush) continue;
    double seconds = 0, bytes = 0;
    for (const bench::LayerCell& c : result_->cells) {
      if (c.slots != r.slots || c.rows_per_slot != r.rows_per_slot || c.routing != r.routing) continue;
      seconds += double(kTinyKinds[c.kind].main_layers) * c.seconds;
      bytes += double(kTinyKinds[c.kind].main_layers) * c.bytes;
    }
    EXPECT_EQ(r.layers, 6);
    EXPECT_DOUBLE_EQ(r.seconds, seconds);
    EXPECT_DOUBLE_EQ(r.bytes, bytes);
    EXPECT_DOUBLE_EQ(r.floor_seconds, bytes / kBandwidth);
  }
}

// Each summed round comes again as one flush: the same shape, layers, bytes and floor, its own time.
TEST_F(SynthLayers, EachRoundAgainInOneFlush) {
  const auto& rounds = result_->rounds;
  ASSERT_EQ(rounds.size(), 12u);
  for (size_t i = 0; i < 6; ++i) {
    const bench::RoundCell &summed = rounds[i], &flush = rounds[i + 6];
    EXPECT_FALSE(summed.one_flush);
    EXPECT_TRUE(flush.one_flush);
    EXPECT_EQ(flush.slots, summed.slots);
    EXPECT_EQ(flush.rows_per_slot, summed.rows_per_slot);
    EXPECT_EQ(flush.routing, summed.routing);
    EXPECT_EQ(flush.layers, 6);
    EXPECT_DOUBLE_EQ(flush.bytes, summed.bytes);
    EXPECT_DOUBLE_EQ(flush.floor_seconds, summed.floor_seconds);
    EXPECT_GT(flush.seconds, 0.0);
  }
}

TEST(SynthLayersOptions, TooFewDistinctExpertsForOneRowIsRefused) {
  auto backend = kernels::make_host_backend(kernels::Numerics::release);
  EXPECT_THAT(error_of([&] {
                bench::run_layer_bench(dsv4::tiny_config(dsv4::TinySpec{}), *backend,
                                       {.rows = {1}, .repeats = 1, .context = 8, .distinct_experts = 1,
                                        .bandwidth = 1e9, .say = {}});
              }),
              HasSubstr("--distinct-experts 1"));
}

}  // namespace
}  // namespace plumb::test
