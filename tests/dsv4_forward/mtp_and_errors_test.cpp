// The MTP draft head: its logits are the same bits run twice, in one call or split into several, beside other slots,
// and chained drafts leave no trace in a snapshot. Bad input: every kind is a plumb::Error that changes no state.
#include <gtest/gtest.h>

#include "base/error.h"
#include "tiny_model.h"

namespace plumb::test {
namespace {

using kernels::Numerics;

constexpr int64_t kLength = 40;

class MtpHead : public ::testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override { PLUMB_SKIP_UNLESS_BACKEND(GetParam()); }
};

// Runs the prompt into `slot` in chunks, with the MTP catch-up rows of each chunk's positions after it (in calls of
// `catch_up` rows); returns every catch-up row's draft logits in order.
std::vector<float> prompt_with_catch_up(model::Model& m, int32_t slot, const std::vector<int32_t>& tokens,
                                        int64_t chunk, int64_t catch_up) {
  const size_t vocab = size_t(m.info().vocab_size);
  std::vector<float> drafts;
  for (int64_t p = 0; p < kLength; p += chunk) {
    const int64_t end = std::min(kLength, p + chunk);
    run_chunks(m, slot, tokens, p, end, {chunk});
    for (int64_t q = p; q < std::min(end, kLength - 1);) {
      std::vector<model::DraftRow> rows;
      for (; q < std::min(end, kLength - 1) && int64_t(rows.size()) < catch_up; ++q)
        rows.push_back({slot, q, tokens[size_t(q + 1)], false});
      std::vector<float> logits(rows.size() * vocab);
      m.draft_forward(rows, logits);
      drafts.insert(drafts.end(), logits.begin(), logits.end());
    }
  }
  return drafts;
}

TEST_P(MtpHead, DraftLogitsAreDeterministicAndSplitInvariant) {
  const auto model = open_tiny(GetParam());
  const auto tokens = random_tokens(21, kLength, model->info().vocab_size);
  const auto a = prompt_with_catch_up(*model, 0, tokens, 8, 8);
  const auto b = prompt_with_catch_up(*model, 1, tokens, 8, 8);
  const auto c = prompt_with_catch_up(*model, 2, tokens, 8, 3);  // catch-up rows split into several calls
  ASSERT_EQ(a.size(), size_t(kLength - 1) * size_t(model->info().vocab_size));
  EXPECT_TRUE(bit_equal(a, b));
  EXPECT_TRUE(bit_equal(a, c));
  const auto other = open_tiny(GetParam());
  EXPECT_TRUE(bit_equal(a, prompt_with_catch_up(*other, 1, tokens, 5, 5)));  // another instance, other chunking
}

TEST_P(MtpHead, ChainedDraftsAreDeterministicAndLeaveNoTraceInSnapshots) {
  const auto model = open_tiny(GetParam());
  const size_t vocab = size_t(model->info().vocab_size);
  const auto tokens = random_tokens(22, kLength + 1, model->info().vocab_size);
  // Each slot: the prompt with catch-up, then the row of the last position with the sampled token (tokens[kLength]).
  // Slots 0 and 1 then chain three drafts from it; slot 2 does not.
  std::vector<std::vector<float>> chains;
  for (int32_t slot = 0; slot < 3; ++slot) {
    prompt_with_catch_up(*model, slot, tokens, 8, 8);
    std::vector<float> logits(vocab);
    const model::DraftRow first{slot, kLength - 1, tokens[size_t(kLength)], false};
    model->draft_forward(std::span<const model::DraftRow>(&first, 1), logits);
    std::vector<float> chain = logits;
    for (int64_t q = kLength; slot < 2 && q < kLength + 3; ++q) {
      const auto best = int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
      const model::DraftRow row{slot, q, best, true};
      model->draft_forward(std::span<const model::DraftRow>(&row, 1), logits);
      chain.insert(chain.end(), logits.begin(), logits.end());
    }
    chains.push_back(chain);
  }
  EXPECT_EQ(chains[0].size(), 4 * vocab);
  EXPECT_TRUE(bit_equal(chains[0], chains[1]));
  const auto clean = model->snapshot(2).bytes;
  EXPECT_EQ(model->snapshot(0).bytes, clean);
  EXPECT_EQ(model->snapshot(1).bytes, clean);
}

TEST_P(MtpHead, BadInputIsAnErrorAndChangesNothing) {
  const auto model = open_tiny(GetParam(), 2, 8, 64);
  const size_t vocab = size_t(model->info().vocab_size);
  const int32_t v = model->info().vocab_size;
  const auto tokens = random_tokens(23, 64, v);
  run_chunks(*model, 0, tokens, 0, 10, {5});
  const auto before = model->snapshot(0);
  std::vector<float> logits(20 * vocab);
  auto forward = [&](std::vector<model::Row> rows) { model->forward(rows, logits); };
  EXPECT_THROW(forward({{0, 10, -1, true}}), Error);                      // token below the vocabulary
  EXPECT_THROW(forward({{0, 10, v, true}}), Error);                       // token past it
  EXPECT_THROW(forward({{0, 11, 3, true}}), Error);                       // skips position 10
  EXPECT_THROW(forward({{0, 10, 3, true}, {0, 12, 3, true}}), Error);     // not consecutive
  EXPECT_THROW(forward({{0, 10, 3, true}, {1, 0, 3, true}, {0, 10, 3, true}}), Error);  // repeats a position
  EXPECT_THROW(forward({{2, 0, 3, true}}), Error);                        // no such slot
  std::vector<model::Row> too_many;
  for (int64_t p = 10; p < 19; ++p) too_many.push_back({0, p, 3, true});  // 9 rows > max_rows_per_slot 8
  EXPECT_THROW(forward(too_many), Error);
  std::vector<float> small(vocab / 2);
  EXPECT_THROW(model->forward(std::vector<model::Row>{{0, 10, 3, true}}, small), Error);
  EXPECT_THROW(model->rewind(0, 1), Error);   // further back than max_rows_per_slot
  EXPECT_THROW(model->rewind(0, 11), Error);  // ahead of the slot
  auto draft = [&](std::vector<model::DraftRow> rows) { model->draft_forward(rows, logits); };
  EXPECT_THROW(draft({{0, 3, 1, false}}), Error);   // the MTP state continues at 0
  EXPECT_THROW(draft({{0, 0, v, false}}), Error);   // token outside the vocabulary
  EXPECT_THROW(draft({{0, 0, 1, true}}), Error);    // chained without a previous draft row
  EXPECT_EQ(model->snapshot(0).bytes, before.bytes);

  // Positions past the context: fill slot 1 to max_context, then one more.
  run_chunks(*model, 1, tokens, 0, 64, {8});
  EXPECT_THROW(forward({{1, 64, 3, true}}), Error);

  // Snapshots: garbage, truncated, from a model of the other numerics.
  model::SlotSnapshot bad = before;
  bad.bytes.resize(bad.bytes.size() - 4);
  EXPECT_THROW(model->restore(1, bad), Error);
  bad.bytes.assign(100, 7);
  EXPECT_THROW(model->restore(1, bad), Error);
  const auto other = open_tiny(GetParam().numerics == Numerics::oracle ? Numerics::release : Numerics::oracle, 1, 8, 64);
  run_chunks(*other, 0, tokens, 0, 10, {5});
  EXPECT_THROW(model->restore(1, other->snapshot(0)), Error);

  // After all that, slot 0 continues exactly as a fresh run.
  const auto fresh = open_tiny(GetParam(), 1, 8, 64);
  const auto expected = run_chunks(*fresh, 0, tokens, 0, 30, {7, 3});
  const auto got = run_chunks(*model, 0, tokens, 10, 30, {7});
  EXPECT_TRUE(bit_equal(got, std::vector<float>(expected.begin() + 10 * int64_t(vocab), expected.end())));
}

INSTANTIATE_TEST_SUITE_P(Backends, MtpHead, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace plumb::test
