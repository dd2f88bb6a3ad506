// The op timer (kernels/op_timer.h) on a model through Dsv4Options::op_observer: observing changes no logit, each
// op of the forward is timed once per call (counts by hand from the config), linears are named by format and
// shape, and the classes add up to the ops.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "kernels/op_timer.h"
#include "test_support.h"
#include "tiny_model.h"

namespace plumb::test {
namespace {

class CountingTimer final : public kernels::OpObserver {
 public:
  kernels::OpTimer timer;
  int begins = 0, ends = 0;
  void begin(kernels::Backend& inner, const char* op, const void* detail) override {
    ++begins;
    timer.begin(inner, op, detail);
  }
  void end(kernels::Backend& inner, const char* op, std::initializer_list<kernels::OpOutput> outputs) override {
    ++ends;
    timer.end(inner, op, outputs);
  }
};

TEST(OpTimer, TimesEveryOpOnceAndChangesNoLogit) {
  CountingTimer observer;
  auto open = [&](kernels::OpObserver* o) {
    return dsv4::Dsv4Model::open(tiny_checkpoint_dir(), {.numerics = kernels::Numerics::release, .backend = "cpu",
                                                         .slots = 1, .max_rows_per_slot = 8, .max_context = 64,
                                                         .name = "tiny", .op_observer = o});
  };
  const auto plain = open(nullptr);
  const auto timed = open(&observer);
  const auto tokens = random_tokens(9, 6, plain->info().vocab_size);
  EXPECT_TRUE(bit_equal(run_chunks(*plain, 0, tokens, 0, 6, {6}), run_chunks(*timed, 0, tokens, 0, 6, {6})));

  const auto& c = timed->config();
  EXPECT_GT(observer.begins, 0);
  EXPECT_EQ(observer.begins, observer.ends);
  const auto& ops = observer.timer.by_op();
  ASSERT_TRUE(ops.count("attention_rope")) << observer.timer.table();
  EXPECT_EQ(ops.at("attention_rope").calls, c.num_layers);  // one launch of 6 rows: one attention per main block
  EXPECT_EQ(ops.at("routed_experts").calls, c.num_layers);  // and one MoE
  EXPECT_EQ(ops.at("hc_pre").calls, 2 * c.num_layers);      // before each of them
  EXPECT_EQ(ops.at("embed").calls, 1);
  EXPECT_TRUE(ops.count(fmt::format("linear fp8 {}x{}", c.q_lora_rank, c.hidden_size))) << observer.timer.table();
  int64_t calls = 0;
  double seconds = 0;
  for (const auto& [op, r] : ops) calls += r.calls, seconds += r.seconds;
  EXPECT_EQ(calls, observer.begins);
  double classes = 0;
  for (double s : observer.timer.take_classes()) classes += s;
  EXPECT_NEAR(classes, seconds, 1e-9 * seconds + 1e-12);
  for (double s : observer.timer.take_classes()) EXPECT_EQ(s, 0.0);  // taking starts a new count
}

TEST(OpTimer, ClassesOfTheBackendOps) {
  using kernels::OpClass;
  EXPECT_EQ(kernels::op_class_of("linear"), OpClass::dense);
  EXPECT_EQ(kernels::op_class_of("routed_experts"), OpClass::experts);
  EXPECT_EQ(kernels::op_class_of("shared_expert"), OpClass::experts);
  EXPECT_EQ(kernels::op_class_of("attention"), OpClass::attention);
  EXPECT_EQ(kernels::op_class_of("attention_rope"), OpClass::attention);
  EXPECT_EQ(kernels::op_class_of("indexer_topk"), OpClass::attention);
  EXPECT_EQ(kernels::op_class_of("compress_project"), OpClass::attention);
  EXPECT_EQ(kernels::op_class_of("compress_pool"), OpClass::attention);
  for (const char* glue : {"embed", "rms_norm", "head_rms_norm", "head_rms_norm_rope", "rope", "quant_sim", "hadamard",
                           "hc_pre", "hc_post", "hc_head", "route", "add", "copy_rows"})
    EXPECT_EQ(kernels::op_class_of(glue), OpClass::glue) << glue;
}

}  // namespace
}  // namespace plumb::test
