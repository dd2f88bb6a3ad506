#include "base/dtype.h"

#include <array>
#include <utility>

namespace plumb {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  size_t size;
};

constexpr std::array<DTypeInfo, 11> kInfo = {{
    {DType::dtype_f64, "F64", 8},
    {DType::dtype_f32, "F32", 4},
    {DType::dtype_f16, "F16", 2},
    {DType::dtype_bf16, "BF16", 2},
    {DType::dtype_f8_e4m3, "F8_E4M3", 1},
    {DType::dtype_f8_e8m0, "F8_E8M0", 1},
    {DType::dtype_i8, "I8", 1},
    {DType::dtype_u8, "U8", 1},
    {DType::dtype_i32, "I32", 4},
    {DType::dtype_i64, "I64", 8},
    {DType::dtype_bool, "BOOL", 1},
}};

}  // namespace

size_t dtype_size(DType t) { return kInfo[size_t(t)].size; }
std::string_view dtype_name(DType t) { return kInfo[size_t(t)].name; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& info : kInfo)
    if (info.name == name) return info.type;
  return std::nullopt;
}

}  // namespace plumb
