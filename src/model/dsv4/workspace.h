// Scratch tensors of the forward. The arena takes backend memory in chunks once and hands it out stack-wise for
// every later step, so a warm forward allocates and frees nothing (no cudaMalloc or cudaFree, which synchronizes,
// inside a round) and scratch addresses repeat from round to round. A Workspace marks the arena when it begins and
// gives back everything it took when it ends; only the innermost live Workspace may take.
//
// Scratch is not zero-filled on reuse: every op writes its whole output. Poison mode fills each new tensor with 0xFF
// bytes (NaN for floats) so tests can prove that no op reads scratch it did not write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/backend.h"

namespace plumb::dsv4 {

class ScratchArena {
 public:
  explicit ScratchArena(kernels::Backend& backend) : backend_(backend) {}
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;

  struct Mark {
    size_t chunk = 0, offset = 0;
    int depth = 0;
  };
  Mark begin();             // a new innermost workspace starts here
  void end(const Mark& m);  // ... and everything it took comes back
  kernels::Tensor take(const Mark& owner, DType dtype, int64_t rows, int64_t cols);

  DType act_dtype() const { return backend_.act_dtype(); }
  void set_poison(bool on) { poison_ = on; }
  size_t bytes_held() const;  // backend memory the arena keeps
  size_t chunks() const { return chunks_.size(); }

 private:
  kernels::Backend& backend_;
  std::vector<kernels::Buffer> chunks_;
  size_t chunk_ = 0, offset_ = 0;  // the next free byte
  int depth_ = 0;                  // live workspaces
  bool poison_ = false;
};

class Workspace {
 public:
  explicit Workspace(ScratchArena& arena) : arena_(arena), mark_(arena.begin()) {}
  ~Workspace() { arena_.end(mark_); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  kernels::Tensor act(int64_t rows, int64_t cols) { return arena_.take(mark_, arena_.act_dtype(), rows, cols); }
  kernels::Tensor i32(int64_t rows, int64_t cols) { return arena_.take(mark_, DType::dtype_i32, rows, cols); }

 private:
  ScratchArena& arena_;
  ScratchArena::Mark mark_;
};

}  // namespace plumb::dsv4
