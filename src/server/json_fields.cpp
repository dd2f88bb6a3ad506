#include "server/json_fields.h"

#include <fmt/format.h>

#include <cmath>

#include "server/api_error.h"

namespace plumb::server {

std::string_view json_type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "object";
    case json::value_t::array: return "array";
    case json::value_t::string: return "string";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    default: return "value";
  }
}

std::string dump_json(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

FieldReader::FieldReader(const json& obj, std::string path) : obj_(obj), path_(std::move(path)) {}

std::string FieldReader::param(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

const json* FieldReader::find(std::string_view key) const {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool FieldReader::has(std::string_view key) const { return find(key) != nullptr; }

void FieldReader::wrong_type(std::string_view key, std::string_view expected) const {
  throw invalid_request(fmt::format("'{}' must be {}, got {}", param(key), expected, json_type_name(*find(key))),
                        param(key));
}

std::optional<std::string> FieldReader::string(std::string_view key) const {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) wrong_type(key, "a string");
  return v->get<std::string>();
}

std::optional<bool> FieldReader::boolean(std::string_view key) const {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) wrong_type(key, "a boolean");
  return v->get<bool>();
}

std::optional<int64_t> FieldReader::integer(std::string_view key, int64_t min, int64_t max) const {
  const json* v = find(key);
  if (!v) return std::nullopt;
  int64_t x = 0;
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    if (max < 0 || u > uint64_t(max))
      throw invalid_request(fmt::format("'{}' must be at most {}, got {}", param(key), max, u), param(key));
    x = int64_t(u);
  } else if (v->is_number_integer()) {
    x = v->get<int64_t>();
  } else {
    wrong_type(key, "an integer");
  }
  if (x < min) throw invalid_request(fmt::format("'{}' must be at least {}, got {}", param(key), min, x), param(key));
  if (x > max) throw invalid_request(fmt::format("'{}' must be at most {}, got {}", param(key), max, x), param(key));
  return x;
}

std::optional<double> FieldReader::number(std::string_view key, double min, double max) const {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong_type(key, "a number");
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < min || x > max)
    throw invalid_request(fmt::format("'{}' must be between {} and {}, got {}", param(key), min, max, v->dump()),
                          param(key));
  return x;
}

const json* FieldReader::object(std::string_view key) const {
  const json* v = find(key);
  if (v && !v->is_object()) wrong_type(key, "an object");
  return v;
}

const json* FieldReader::array(std::string_view key) const {
  const json* v = find(key);
  if (v && !v->is_array()) wrong_type(key, "an array");
  return v;
}

}  // namespace plumb::server
