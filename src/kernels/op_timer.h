// Wall time per op and per op class, as an observer of a backend's ops (observed_backend.h): the inner backend is
// synchronized before and after every op, so an op's row holds all it costs (host work, launches, device work),
// and ops never overlap. Compare ops with it; time whole layers without it (the synchronizations add their own
// cost, about 10 us per op on a GPU). `plumb synth` uses it for the dispatch classes of its layer cells.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "kernels/observed_backend.h"

namespace plumb::kernels {

// The dispatch classes of a layer (ENGINE.md section 7): dense linears, routed and shared experts, attention
// (compressor, indexer, attention) and glue (norms, RoPE, mHC, rounding simulation, sums, copies, embedding,
// routing).
enum class OpClass : uint8_t { dense, experts, attention, glue };
constexpr size_t kOpClasses = 4;
const char* op_class_name(OpClass c);  // "dense", "experts", "attention", "glue"
OpClass op_class_of(const std::string& op);  // by the Backend method name ("linear", "attention", ...)

class OpTimer final : public OpObserver {
 public:
  struct Row {
    int64_t calls = 0;
    double seconds = 0;
  };

  void begin(Backend& inner, const char* op, const void* detail) override;
  void end(Backend& inner, const char* op, std::initializer_list<OpOutput> outputs) override;

  // Per op ("linear fp8 2048x4096", "attention", ...) since construction.
  const std::map<std::string, Row>& by_op() const { return by_op_; }
  // Per class since the last take_classes(), which starts a new count.
  std::array<double, kOpClasses> take_classes();
  // The per-op table, largest total first.
  std::string table() const;

 private:
  std::map<std::string, Row> by_op_;
  std::array<double, kOpClasses> classes_{};
  std::string label_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace plumb::kernels
