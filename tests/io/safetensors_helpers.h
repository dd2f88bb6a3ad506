// Helpers for the io tests: hand-built safetensors files (so malformed ones can be made on purpose) and error capture.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "base/error.h"
#include "test_support.h"

namespace plumb::test {

// 8-byte little-endian `header_len` (the real length unless overridden), the header text, then `data`.
inline std::vector<std::byte> raw_safetensors(const std::string& header, const std::vector<uint8_t>& data,
                                              std::optional<uint64_t> header_len = std::nullopt) {
  const uint64_t len = header_len.value_or(header.size());
  std::vector<std::byte> out;
  for (int i = 0; i < 8; ++i) out.push_back(std::byte(uint8_t(len >> (8 * i))));
  for (char c : header) out.push_back(std::byte(uint8_t(c)));
  for (uint8_t b : data) out.push_back(std::byte(b));
  return out;
}

inline void write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace plumb::test
