// Exactness of the forward on the tiny model, for both numerics (ENGINE.md section 1): a prompt's logits are the same
// bits however it is chunked, whatever other slots' rows share its launches, across snapshot/restore, and after
// drafted rows are rewound (whose snapshot is byte-identical to a slot that never drafted).
#include <gtest/gtest.h>

#include "tiny_model.h"

namespace plumb::test {
namespace {

using kernels::Numerics;

constexpr int64_t kPromptLength = 100;  // 25 CSA rows (> index_topk 4), 6 HCA rows of 16, window 8

class ForwardExactness : public ::testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override {
    PLUMB_SKIP_UNLESS_BACKEND(GetParam());
    model_ = open_tiny(GetParam(), 3, 128);
    tokens_ = random_tokens(11, kPromptLength, model_->info().vocab_size);
    reference_ = run_chunks(*model_, 0, tokens_, 0, kPromptLength, {kPromptLength});
    model_->reset_slot(0);
  }
  size_t vocab() const { return size_t(model_->info().vocab_size); }
  std::vector<float> reference_rows(int64_t begin, int64_t end) const {
    return {reference_.begin() + begin * int64_t(vocab()), reference_.begin() + end * int64_t(vocab())};
  }

  std::unique_ptr<dsv4::Dsv4Model> model_;
  std::vector<int32_t> tokens_;
  std::vector<float> reference_;  // the whole prompt in one launch
};

TEST_P(ForwardExactness, ChunkingsGiveTheSameBits) {
  for (const std::vector<int64_t>& chunks :
       {std::vector<int64_t>{1}, {3}, {7}, {64}, {5, 1, 17, 2, 64, 9}, {31, 4, 1, 1, 2}}) {
    model_->reset_slot(1);
    EXPECT_TRUE(bit_equal(run_chunks(*model_, 1, tokens_, 0, kPromptLength, chunks), reference_))
        << "first chunk " << chunks[0];
  }
}

TEST_P(ForwardExactness, RowsBesideOtherSlotsGiveTheSameBits) {
  // Slot 2 holds another prompt; slots 1 and 2 run their rows interleaved with slot 0's in each launch.
  const auto other = random_tokens(12, kPromptLength, model_->info().vocab_size);
  run_chunks(*model_, 2, other, 0, 13, {13});
  const auto other_ref_model = open_tiny(GetParam(), 1, 128);
  const auto other_reference = run_chunks(*other_ref_model, 0, other, 0, kPromptLength, {kPromptLength});

  std::vector<float> got0, got1, got2;
  int64_t p0 = 0, p1 = 0, p2 = 13;
  for (int launch = 0; p0 < kPromptLength; ++launch) {
    std::vector<model::Row> rows;
    const int64_t n0 = std::min<int64_t>(1 + launch % 9, kPromptLength - p0);
    const int64_t n1 = std::min<int64_t>(1 + (launch * 5) % 7, kPromptLength - p1);
    const int64_t n2 = std::min<int64_t>(2, kPromptLength - p2);
    // Interleave: a row of slot 1, then slot 0, then slot 2, ...
    for (int64_t i = 0; i < std::max({n0, n1, n2}); ++i) {
      if (i < n1) rows.push_back({1, p1 + i, tokens_[size_t(p1 + i)], true});
      if (i < n0) rows.push_back({0, p0 + i, tokens_[size_t(p0 + i)], true});
      if (i < n2) rows.push_back({2, p2 + i, other[size_t(p2 + i)], true});
    }
    std::vector<float> logits(rows.size() * vocab());
    model_->forward(rows, logits);
    for (size_t r = 0; r < rows.size(); ++r) {
      auto& dst = rows[r].slot == 0 ? got0 : rows[r].slot == 1 ? got1 : got2;
      dst.insert(dst.end(), logits.begin() + r * vocab(), logits.begin() + (r + 1) * vocab());
    }
    p0 += n0, p1 += n1, p2 += n2;
  }
  EXPECT_TRUE(bit_equal(got0, reference_));
  EXPECT_TRUE(bit_equal(got1, reference_rows(0, p1)));
  std::vector<float> other_tail(other_reference.begin() + 13 * int64_t(vocab()),
                                other_reference.begin() + p2 * int64_t(vocab()));
  EXPECT_TRUE(bit_equal(got2, other_tail));
}

TEST_P(ForwardExactness, SnapshotRestoreContinuesWithTheSameBits) {
  for (int64_t cut : {1, 37, 64, 67}) {  // mid-group, on a 16-boundary, just past it
    model_->reset_slot(0);
    const auto head = run_chunks(*model_, 0, tokens_, 0, cut, {5});
    const model::SlotSnapshot snap = model_->snapshot(0);
    EXPECT_EQ(snap.position, cut);
    model_->reset_slot(1);
    run_chunks(*model_, 1, tokens_, 0, 9, {9});  // leave other content in the target slot first
    model_->restore(1, snap);
    EXPECT_EQ(model_->slot_position(1), cut);
    EXPECT_EQ(model_->snapshot(1).bytes, snap.bytes);
    const auto tail = run_chunks(*model_, 1, tokens_, cut, kPromptLength, {3, 8});
    EXPECT_TRUE(bit_equal(tail, reference_rows(cut, kPromptLength))) << "cut at " << cut;
  }
}

TEST_P(ForwardExactness, RewoundDraftsLeaveTheStateOfNeverDrafted) {
  const int64_t p = 29, drafts = 6;  // rows 29..34 cross the 4- and 16-token group boundary at 32
  for (int64_t accepted = 0; accepted < drafts; ++accepted) {
    model_->reset_slot(0);
    model_->reset_slot(1);
    run_chunks(*model_, 0, tokens_, 0, p, {p});
    run_chunks(*model_, 0, tokens_, p, p + drafts, {drafts});  // the round: next token + drafts
    model_->rewind(0, p + 1 + accepted);
    run_chunks(*model_, 1, tokens_, 0, p + 1 + accepted, {p, 1 + accepted});
    EXPECT_EQ(model_->snapshot(0).bytes, model_->snapshot(1).bytes) << accepted << " accepted";
    const auto a = run_chunks(*model_, 0, tokens_, p + 1 + accepted, kPromptLength, {4});
    const auto b = run_chunks(*model_, 1, tokens_, p + 1 + accepted, kPromptLength, {4});
    EXPECT_TRUE(bit_equal(a, b));
    EXPECT_TRUE(bit_equal(a, reference_rows(p + 1 + accepted, kPromptLength)));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ForwardExactness, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace plumb::test
