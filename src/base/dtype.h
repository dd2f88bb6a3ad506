// Element types of stored tensors (the safetensors dtypes plumb reads and writes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace plumb {

enum class DType : uint8_t {
  dtype_f64,
  dtype_f32,
  dtype_f16,
  dtype_bf16,
  dtype_f8_e4m3,
  dtype_f8_e8m0,
  dtype_i8,
  dtype_u8,
  dtype_i32,
  dtype_i64,
  dtype_bool,
};

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);                       // the safetensors spelling: "F32", "F8_E4M3", ...
std::optional<DType> dtype_from_name(std::string_view name);

}  // namespace plumb
