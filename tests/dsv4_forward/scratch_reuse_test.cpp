// The forward's scratch arena: memory is reused from step to step (a warm model allocates nothing), and no op reads
// scratch it did not write — a model whose every scratch tensor starts as NaN bytes gives the same bits as one
// whose scratch holds whatever the previous op left.
#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"
#include "kernels/backend.h"
#include "model/dsv4/workspace.h"
#include "tiny_model.h"

namespace plumb::test {
namespace {

TEST(ScratchArena, HandsBackMemoryStackWiseAndPoisonsNewTensors) {
  const auto backend = kernels::make_host_backend(kernels::Numerics::release);
  dsv4::ScratchArena arena(*backend);
  void* first = nullptr;
  for (int step = 0; step < 3; ++step) {
    dsv4::Workspace outer(arena);
    const kernels::Tensor a = outer.act(4, 1000);
    if (step == 0) first = a.data;
    EXPECT_EQ(a.data, first) << "step " << step;  // the same memory every step
    {
      dsv4::Workspace inner(arena);
      const kernels::Tensor b = inner.i32(3, 7), c = inner.act(2, 5);
      EXPECT_NE(b.data, a.data);
      EXPECT_GE(static_cast<std::byte*>(c.data) - static_cast<std::byte*>(b.data), 3 * 7 * 4);
      // Taking for the outer workspace while the inner one lives would be given back with the inner's.
      EXPECT_THROW(outer.act(1, 1), Error);
    }
    const kernels::Tensor d = outer.act(1, 1);  // after the inner ended: allowed, and where the inner began
    EXPECT_GT(d.data, a.data);
  }
  EXPECT_EQ(arena.chunks(), 1u);
  // A tensor bigger than a chunk gets its own; poison fills new tensors with 0xFF bytes.
  arena.set_poison(true);
  dsv4::Workspace ws(arena);
  const kernels::Tensor big = ws.act(1, int64_t(3) << 20);
  EXPECT_EQ(arena.chunks(), 2u);
  std::vector<uint8_t> bytes(size_t(big.cols) * 4);
  backend->download(big, bytes.data());
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), uint8_t(0xFF)), std::ptrdiff_t(bytes.size()));
}

class ScratchReuse : public ::testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override { PLUMB_SKIP_UNLESS_BACKEND(GetParam()); }
};

struct Observed {
  std::vector<float> logits, drafts;
  std::vector<std::vector<uint8_t>> snapshots;
  size_t scratch_after_warmup = 0, scratch_at_end = 0;
};

// A prompt in uneven chunks beside another slot, MTP catch-up drafts, a snapshot restored into a third slot and
// continued there: every output the model gives.
Observed run_everything(dsv4::Dsv4Model& m) {
  const int32_t vocab = m.info().vocab_size;
  const auto tokens = random_tokens(31, 90, vocab), other = random_tokens(32, 40, vocab);
  Observed o;
  o.logits = run_chunks(m, 0, tokens, 0, 40, {7, 1, 19});
  o.scratch_after_warmup = m.scratch_bytes();
  const auto beside = run_chunks(m, 1, other, 0, 40, {40});
  o.logits.insert(o.logits.end(), beside.begin(), beside.end());
  std::vector<model::DraftRow> rows;
  for (int64_t q = 0; q < 39; ++q) rows.push_back({0, q, tokens[size_t(q + 1)], false});
  o.drafts.resize(rows.size() * size_t(vocab));
  m.draft_forward(rows, o.drafts);
  const model::SlotSnapshot snap = m.snapshot(0);
  o.snapshots.push_back(snap.bytes);
  m.restore(2, snap);
  const auto tail = run_chunks(m, 2, tokens, 40, 90, {3, 11});
  o.logits.insert(o.logits.end(), tail.begin(), tail.end());
  o.snapshots.push_back(m.snapshot(2).bytes);
  o.scratch_at_end = m.scratch_bytes();
  return o;
}

TEST_P(ScratchReuse, PoisonedScratchGivesTheSameBits) {
  const auto plain = open_tiny(GetParam());
  const auto got = run_everything(*plain);
  const auto poisoned_model = dsv4::Dsv4Model::open(tiny_checkpoint_dir(), {.numerics = GetParam().numerics,
                                                                             .backend = GetParam().backend,
                                                                             .slots = 3,
                                                                             .max_context = 512,
                                                                             .name = "tiny",
                                                                             .poison_scratch = true});
  const auto poisoned = run_everything(*poisoned_model);
  EXPECT_TRUE(bit_equal(got.logits, poisoned.logits));
  EXPECT_TRUE(bit_equal(got.drafts, poisoned.drafts));
  EXPECT_EQ(got.snapshots, poisoned.snapshots);
  // Scratch is taken once: a launch no wider than the first ones adds nothing.
  EXPECT_GT(got.scratch_after_warmup, 0u);
  EXPECT_EQ(got.scratch_at_end, got.scratch_after_warmup);
}

INSTANTIATE_TEST_SUITE_P(Backends, ScratchReuse, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace plumb::test
