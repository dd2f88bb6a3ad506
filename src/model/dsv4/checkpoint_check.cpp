// The checkpoint checker: plan vs folder, tensor by tensor.
#include "model/dsv4/checkpoint_check.h"

#include <fmt/format.h>

#include <cstring>
#include <set>

#include "model/dsv4/tensor_plan.h"

namespace plumb::dsv4 {
namespace {

// The first row of a tid2eid table whose expert ids are out of range or repeated, described; empty when all fine.
std::string hash_table_problem(const io::TensorRef& ref, int64_t n_experts) {
  const auto bytes = ref.bytes();
  const int64_t rows = ref.info->shape[0], cols = ref.info->shape[1];
  std::vector<int64_t> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(row.data(), bytes.data() + r * cols * 8, size_t(cols) * 8);
    for (int64_t i = 0; i < cols; ++i) {
      if (row[i] < 0 || row[i] >= n_experts)
        return fmt::format("row {} holds expert id {} (n_routed_experts is {})", r, row[i], n_experts);
      for (int64_t k = 0; k < i; ++k)
        if (row[k] == row[i]) return fmt::format("row {} names expert {} twice", r, row[i]);
    }
  }
  return {};
}

}  // namespace

CheckReport check_checkpoint(const io::CheckpointFolder& folder, const Config& config) {
  CheckReport report;
  report.problems = folder.problems();
  std::set<std::string> planned_names;
  for (const PlannedTensor& t : plan_tensors(config)) {
    planned_names.insert(t.name);
    const auto ref = folder.find(t.name);
    if (!ref) {
      if (!folder.in_unreadable_shard(t.name)) report.problems.push_back(fmt::format("tensor {}: missing", t.name));
      continue;
    }
    const std::string where = ref->file->path().filename().string();
    const bool dtype_ok = ref->info->dtype == t.dtype;
    const bool shape_ok = ref->info->shape == t.shape;
    if (!dtype_ok)
      report.problems.push_back(fmt::format("tensor {} ({}): dtype {}, expected {}", t.name, where,
                                            dtype_name(ref->info->dtype), dtype_name(t.dtype)));
    if (!shape_ok)
      report.problems.push_back(fmt::format("tensor {} ({}): shape {}, expected {}", t.name, where,
                                            io::shape_to_string(ref->info->shape), io::shape_to_string(t.shape)));
    if (!dtype_ok || !shape_ok) continue;
    if (t.kind == TensorKind::hash_table) {
      if (const std::string why = hash_table_problem(*ref, config.n_routed_experts); !why.empty()) {
        report.problems.push_back(fmt::format("tensor {} ({}): {}", t.name, where, why));
        continue;
      }
    }
    ++report.tensors_ok;
  }
  for (const std::string& name : folder.tensor_names())
    if (!planned_names.contains(name)) report.unexpected.push_back(name);
  return report;
}

}  // namespace plumb::dsv4
