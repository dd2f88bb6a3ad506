// Typed reads of request fields with OpenAI-shaped errors: each reader names the field (with its path, such as
// "messages[2].role") when the type or range is wrong. A null value counts as absent, as in OpenAI's API.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plumb::server {

using json = nlohmann::ordered_json;

class FieldReader {
 public:
  // `obj` must be an object; `path` prefixes field names in errors ("" at the top level).
  FieldReader(const json& obj, std::string path);

  bool has(std::string_view key) const;  // present and not null
  std::optional<std::string> string(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  // Integers only (1.0 is not one); out of [min, max] is an error naming the range.
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max) const;
  // Any finite JSON number within [min, max].
  std::optional<double> number(std::string_view key, double min, double max) const;
  const json* object(std::string_view key) const;
  const json* array(std::string_view key) const;

  std::string param(std::string_view key) const;  // the field's name as errors print it

 private:
  const json* find(std::string_view key) const;
  [[noreturn]] void wrong_type(std::string_view key, std::string_view expected) const;

  const json& obj_;
  std::string path_;
};

// The JSON type name OpenAI's errors use ("string", "integer", "object", ...).
std::string_view json_type_name(const json& v);

// Serializes a response; invalid UTF-8 (never produced by plumb, but echoed input could carry it) is replaced.
std::string dump_json(const json& v);

}  // namespace plumb::server
