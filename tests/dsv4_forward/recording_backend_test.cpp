// The op-recording decorator (diagnostics for backend comparisons): recording changes no result, and it records
// every op's outputs in call order with their shapes.
#include <gtest/gtest.h>

#include <filesystem>

#include "kernels/recording_backend.h"
#include "test_support.h"
#include "tiny_model.h"

namespace plumb::test {
namespace {

TEST(RecordingBackend, ChangesNoLogitAndRecordsEveryOpInOrder) {
  std::vector<kernels::OpRecord> records;
  auto open = [&](std::vector<kernels::OpRecord>* sink) {
    return dsv4::Dsv4Model::open(tiny_checkpoint_dir(), {.numerics = kernels::Numerics::release, .backend = "cpu",
                                                         .slots = 1, .max_rows_per_slot = 8, .max_context = 64,
                                                         .name = "tiny", .record_ops = sink});
  };
  const auto plain = open(nullptr);
  const auto recorded = open(&records);
  const auto tokens = random_tokens(5, 6, plain->info().vocab_size);
  EXPECT_TRUE(bit_equal(run_chunks(*plain, 0, tokens, 0, 6, {6}), run_chunks(*recorded, 0, tokens, 0, 6, {6})));

  const auto& c = recorded->config();
  ASSERT_FALSE(records.empty());
  // The forward starts by embedding the 6 tokens into hc_mult streams and ends with the vocabulary projection.
  EXPECT_EQ(records.front().op, "embed.out");
  EXPECT_EQ(records.front().rows, 6);
  EXPECT_EQ(records.front().cols, c.hc_mult * c.hidden_size);
  EXPECT_EQ(records.back().op, "linear.y");
  EXPECT_EQ(records.back().cols, c.vocab_size);
  size_t payload = 0;
  for (const auto& r : records) {
    ASSERT_EQ(r.values.size(), size_t(r.rows * r.cols)) << r.op;
    payload += 4 + r.op.size() + 16 + r.values.size() * 4;
  }
  ScratchDir dir;
  kernels::write_op_records((dir.path() / "ops.bin").string(), records);
  EXPECT_EQ(std::filesystem::file_size(dir.path() / "ops.bin"), 8 + payload);
}

}  // namespace
}  // namespace plumb::test
