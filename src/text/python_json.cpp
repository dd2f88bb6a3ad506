// Python-compatible JSON serialization (see python_json.h).
#include "text/python_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace plumb::text {
namespace {

// Python's float repr: the shortest digits that round-trip, in fixed notation when the decimal exponent
// is in [-4, 16), else d.ddde±XX; integral values keep a ".0".
std::string python_float_repr(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), x, std::chars_format::scientific);
  std::string_view s(buffer, size_t(result.ptr - buffer));
  std::string out;
  if (s.front() == '-') {
    out += '-';
    s.remove_prefix(1);
  }
  const size_t e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e))
    if (c != '.') digits += c;
  int exponent = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+'), s.data() + s.size(), exponent);
  const int decimal_point = exponent + 1;  // digits d1d2... mean 0.d1d2... x 10^decimal_point
  const int count = int(digits.size());
  if (decimal_point > -4 && decimal_point <= 16) {
    if (decimal_point <= 0) {
      out += "0.";
      out.append(size_t(-decimal_point), '0');
      out += digits;
    } else if (decimal_point >= count) {
      out += digits;
      out.append(size_t(decimal_point - count), '0');
      out += ".0";
    } else {
      out.append(digits, 0, size_t(decimal_point));
      out += '.';
      out.append(digits, size_t(decimal_point));
    }
  } else {
    out += digits[0];
    if (count > 1) {
      out += '.';
      out.append(digits, 1);
    }
    char exp[16];
    std::snprintf(exp, sizeof(exp), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp;
  }
  return out;
}

void dump(const nlohmann::ordered_json& v, std::string& out) {
  using value_t = nlohmann::ordered_json::value_t;
  switch (v.type()) {
    case value_t::null:
    case value_t::discarded:
      out += "null";
      return;
    case value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case value_t::number_integer:
      out += std::to_string(v.get<int64_t>());
      return;
    case value_t::number_unsigned:
      out += std::to_string(v.get<uint64_t>());
      return;
    case value_t::number_float:
      out += python_float_repr(v.get<double>());
      return;
    case value_t::string:
      out += python_json_string(v.get_ref<const std::string&>());
      return;
    case value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v) {
        if (!first) out += ", ";
        first = false;
        dump(item, out);
      }
      out += ']';
      return;
    }
    case value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : v.items()) {
        if (!first) out += ", ";
        first = false;
        out += python_json_string(key);
        out += ": ";
        dump(item, out);
      }
      out += '}';
      return;
    }
    case value_t::binary:
      out += "null";
      return;
  }
}

}  // namespace

std::string python_json_string(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof(escape), "\\u%04x", static_cast<unsigned char>(c));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string python_json_dumps(const nlohmann::ordered_json& value) {
  std::string out;
  dump(value, out);
  return out;
}

}  // namespace plumb::text
