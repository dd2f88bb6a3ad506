// A request inside the engine: its tokens, where its prompt is, its slot, and its output machinery.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/drafts.h"
#include "engine/request.h"
#include "engine/text_stream.h"

namespace plumb::engine {

enum class SequenceState {
  seq_waiting,  // queued, no slot
  seq_prefill,  // prompt tokens still to add to the slot
  seq_decode,   // generating: one row per round (plus drafts)
  seq_done,     // finished; the slot is free
};

struct Sequence {
  std::shared_ptr<RequestHandle> handle;
  GenerationRequest request;
  SequenceState state = SequenceState::seq_waiting;
  int32_t slot = -1;
  std::vector<int32_t> tokens;  // prompt, then generated ids
  int64_t prompt_done = 0;      // prompt tokens in the slot's state
  std::vector<int32_t> generated;
  uint64_t seed = 0;
  std::unique_ptr<TextStream> text;
  std::unique_ptr<StopStringMatcher> stop;
  RequestStats stats;

  std::vector<int64_t> keep_points;  // prompt positions whose state goes to the prompt cache
  bool keep_at_finish = false;       // finished normally: keep the state of prompt + reply

  std::vector<int32_t> drafts;   // proposed for the next round
  int64_t mtp_done = 0;          // MTP rows have run for positions [0, mtp_done)
  DraftDepthPolicy depth;

  int64_t prompt_size() const { return int64_t(request.prompt.size()); }
};

}  // namespace plumb::engine
