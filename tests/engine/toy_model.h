// A stand-in model for engine tests: each slot's state is its token history, and a row's logits are a hash
// of (its slot's whole history, its position, the vocabulary id). Row-invariant by construction, so the engine's
// scheduling, sampling, cancellation and rewind logic can be tested fast; the same tests run on DeepSeek-V4 too.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "model/model.h"

namespace plumb::test {

class ToyModel : public model::Model {
 public:
  // with_mtp: a toy draft head that predicts the target exactly except at positions a hash picks (~30%).
  ToyModel(int32_t vocab, int32_t slots, int64_t context, int32_t max_rows = 64, bool with_mtp = false)
      : history_(size_t(slots)), chain_(size_t(slots)) {
    info_ = {"toy", vocab, context, slots, max_rows, with_mtp};
  }
  const model::ModelInfo& info() const override { return info_; }
  void reset_slot(int32_t slot) override { history_.at(size_t(slot)).clear(); }
  int64_t slot_position(int32_t slot) const override { return int64_t(history_.at(size_t(slot)).size()); }

  void forward(std::span<const model::Row> rows, std::span<float> logits) override {
    ++launches;
    for (size_t r = 0; r < rows.size(); ++r) {
      auto& h = history_.at(size_t(rows[r].slot));
      if (rows[r].position != int64_t(h.size())) fail("toy model: row at {} but slot holds {}", rows[r].position, h.size());
      h.push_back(rows[r].token);
      if (rows[r].want_logits) fill_logits(h, logits.subspan(r * size_t(info_.vocab_size), size_t(info_.vocab_size)));
    }
  }
  void rewind(int32_t slot, int64_t position) override { history_.at(size_t(slot)).resize(size_t(position)); }
  model::SlotSnapshot snapshot(int32_t slot) const override {
    const auto& h = history_.at(size_t(slot));
    model::SlotSnapshot s{int64_t(h.size()), std::vector<uint8_t>(h.size() * 4)};
    std::memcpy(s.bytes.data(), h.data(), s.bytes.size());
    return s;
  }
  void restore(int32_t slot, const model::SlotSnapshot& s) override {
    auto& h = history_.at(size_t(slot));
    h.resize(size_t(s.position));
    std::memcpy(h.data(), s.bytes.data(), s.bytes.size());
  }
  void draft_forward(std::span<const model::DraftRow> rows, std::span<float> logits) override {
    if (!info_.has_mtp) fail("toy model has no MTP");
    for (size_t r = 0; r < rows.size(); ++r) {
      const auto& row = rows[r];
      const auto& h = history_.at(size_t(row.slot));
      auto& chain = chain_.at(size_t(row.slot));
      if (!row.chained) {
        if (row.position >= int64_t(h.size())) fail("toy MTP: no target state at {}", row.position);
        chain.assign(h.begin(), h.begin() + row.position + 1);
      } else if (int64_t(chain.size()) != row.position + 1) {  // chain = tokens 0 .. position
        fail("toy MTP: chained row at {} after a chain of {}", row.position, chain.size());
      }
      chain.push_back(row.next_token);
      auto out = logits.subspan(r * size_t(info_.vocab_size), size_t(info_.vocab_size));
      fill_logits(chain, out);
      if ((hash_of(chain) >> 7) % 10 < 3) std::reverse(out.begin(), out.end());
      ++draft_rows;
    }
  }

  int64_t launches = 0, draft_rows = 0;

 private:
  static uint64_t hash_of(const std::vector<int32_t>& h) {
    uint64_t state = 1469598103934665603ull;
    for (int32_t t : h) state = (state ^ uint64_t(t)) * 1099511628211ull;
    return state;
  }
  void fill_logits(const std::vector<int32_t>& h, std::span<float> out) const {
    const uint64_t state = hash_of(h);
    for (int32_t v = 0; v < info_.vocab_size; ++v) {
      uint64_t x = (state ^ (uint64_t(v) * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
      x ^= x >> 31;
      out[size_t(v)] = float(double(x >> 40) / double(1 << 24) * 8.0 - 4.0);
    }
  }

  model::ModelInfo info_;
  std::vector<std::vector<int32_t>> history_;
  std::vector<std::vector<int32_t>> chain_;  // the MTP's view: target history up to a row, then drafts
};

}  // namespace plumb::test
