#include "kernels/op_timer.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace plumb::kernels {

const char* op_class_name(OpClass c) {
  switch (c) {
    case OpClass::dense: return "dense";
    case OpClass::experts: return "experts";
    case OpClass::attention: return "attention";
    case OpClass::glue: return "glue";
  }
  return "?";
}

OpClass op_class_of(const std::string& op) {
  if (op == "linear") return OpClass::dense;
  if (op == "routed_experts" || op == "shared_expert") return OpClass::experts;
  if (op == "attention" || op == "attention_rope" || op == "indexer_topk" || op == "compress_project" ||
      op == "compress_pool")
    return OpClass::attention;
  return OpClass::glue;
}

void OpTimer::begin(Backend& inner, const char* op, const void* detail) {
  label_ = op;
  if (detail && label_ == "linear") {  // linears by format and shape: they differ by orders of magnitude
    const auto& d = *static_cast<const LinearDetail*>(detail);
    label_ = fmt::format("linear {} {}x{}{}", d.params->quantize_input ? "fp8" : weight_format_name(d.weight->format),
                         d.weight->rows, d.weight->cols,
                         d.params->groups > 1 ? fmt::format(" x{} groups", d.params->groups) : "");
  }
  inner.synchronize();
  start_ = std::chrono::steady_clock::now();
}

void OpTimer::end(Backend& inner, const char* op, std::initializer_list<OpOutput>) {
  inner.synchronize();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  Row& r = by_op_[label_];
  ++r.calls;
  r.seconds += s;
  classes_[size_t(op_class_of(op))] += s;
}

std::array<double, kOpClasses> OpTimer::take_classes() {
  const auto out = classes_;
  classes_ = {};
  return out;
}

std::string OpTimer::table() const {
  std::vector<std::pair<std::string, Row>> rows(by_op_.begin(), by_op_.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double total = 0;
  for (const auto& [op, r] : rows) total += r.seconds;
  std::string out = fmt::format("{:<44} {:>8} {:>11} {:>10} {:>6}\n", "op (synchronized before and after)", "calls",
                                "total ms", "mean us", "share");
  for (const auto& [op, r] : rows)
    out += fmt::format("{:<44} {:>8} {:>11.2f} {:>10.1f} {:>5.1f}%\n", op, r.calls, r.seconds * 1e3,
                       r.seconds / double(r.calls) * 1e6, total > 0 ? 100.0 * r.seconds / total : 0.0);
  return out;
}

}  // namespace plumb::kernels
