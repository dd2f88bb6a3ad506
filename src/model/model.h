// The model as the engine sees it: a set of slots (one request's state each) and one forward launch over rows
// from any slots. Implemented by src/model/dsv4 for DeepSeek-V4 on every backend; the engine knows nothing else.
//
// Exactness rule: a row's outputs are a function of that row's inputs and its own slot's state alone, so any
// mix of rows in one launch gives each row the bits it gets alone (ENGINE.md section 1).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace plumb::model {

struct ModelInfo {
  std::string name;            // served model id
  int32_t vocab_size = 0;      // logits per row
  int64_t max_context = 0;     // positions 0 .. max_context-1
  int32_t num_slots = 0;       // slots this instance holds state for
  int32_t max_rows_per_slot = 0;  // most rows one slot may add in one launch (ring capacity depends on it)
  bool has_mtp = false;        // an MTP draft head is present
};

// One token of one slot in a launch. Rows of a slot are consecutive positions, ascending, starting at the
// slot's current position; rows of different slots may interleave in any order.
struct Row {
  int32_t slot = 0;
  int64_t position = 0;
  int32_t token = 0;
  bool want_logits = true;  // prompt rows before the last need no head
};

// MTP draft row at `position`: from a hidden state for `position` and the token at position+1, predict the
// token at position+2. The hidden state is the target's final one from the last forward() that ran that
// position, or, with chained set, the MTP's own output of the previous draft row of this slot (deeper drafts).
// Rows write the MTP block's window state at `position`; rows of one slot come in ascending positions.
struct DraftRow {
  int32_t slot = 0;
  int64_t position = 0;
  int32_t next_token = 0;
  bool chained = false;
};

// A slot's complete state at a token boundary, as host bytes (prompt cache, spill files, rewind tests).
struct SlotSnapshot {
  int64_t position = 0;       // tokens the state holds
  std::vector<uint8_t> bytes;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual const ModelInfo& info() const = 0;

  // Empties a slot (position 0).
  virtual void reset_slot(int32_t slot) = 0;
  // Tokens the slot's state holds.
  virtual int64_t slot_position(int32_t slot) const = 0;

  // Runs rows through the model, appending their tokens to their slots' states. `logits` holds
  // rows.size() x vocab floats; rows with want_logits == false leave their part untouched.
  virtual void forward(std::span<const Row> rows, std::span<float> logits) = 0;

  // Forgets every token at or after `position` (drafts rejected): the state becomes bit-equal to the
  // state of a slot that only ever saw tokens [0, position). Reaches back at most max_rows_per_slot tokens
  // (the rows of the last launch); for anything older, restore a snapshot.
  virtual void rewind(int32_t slot, int64_t position) = 0;

  virtual SlotSnapshot snapshot(int32_t slot) const = 0;
  virtual void restore(int32_t slot, const SlotSnapshot& snap) = 0;

  // MTP draft logits (vocab floats per row); only when info().has_mtp.
  virtual void draft_forward(std::span<const DraftRow> rows, std::span<float> logits) = 0;
};

}  // namespace plumb::model
