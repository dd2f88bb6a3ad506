// Header validation and the read-only mapping behind SafetensorsFile. Every check names the file (and the tensor
// when there is one) so a user can tell which of 46 shards is broken and how.
#include "io/safetensors_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "base/error.h"

namespace plumb::io {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100ull << 20;  // the reference implementation's limit

// Position of the first byte that breaks UTF-8 (overlongs, surrogates and code points past U+10FFFF included), or
// npos when the text is valid.
size_t first_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = cp << 6 | (p[i + k] & 0x3F);
    }
    const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return i;
    i += len;
  }
  return std::string_view::npos;
}

uint64_t read_u64_le(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | uint64_t(p[i]);
  return v;
}

[[noreturn]] void fail_tensor(const std::string& label, const std::string& name, const std::string& what) {
  fail("{}: tensor {}: {}", label, name, what);
}

// One header entry turned into a TensorInfo with offsets relative to the data section (fixed up by the caller).
TensorInfo parse_entry(const std::string& label, const std::string& name, const nlohmann::json& entry,
                       uint64_t data_size) {
  const auto bad = [&](const std::string& what) { fail_tensor(label, name, what); };
  if (!entry.is_object()) bad("header entry is not a JSON object");
  const auto dtype_it = entry.find("dtype");
  const auto shape_it = entry.find("shape");
  const auto offsets_it = entry.find("data_offsets");
  if (dtype_it == entry.end() || !dtype_it->is_string()) bad("missing or non-string \"dtype\"");
  if (shape_it == entry.end() || !shape_it->is_array()) bad("missing or non-array \"shape\"");
  if (offsets_it == entry.end() || !offsets_it->is_array() || offsets_it->size() != 2)
    bad("\"data_offsets\" must be an array of two integers");

  TensorInfo info;
  info.name = name;
  const std::string dtype_name = dtype_it->get<std::string>();
  const auto dtype = dtype_from_name(dtype_name);
  if (!dtype) bad(fmt::format("unknown dtype \"{}\"", dtype_name));
  info.dtype = *dtype;

  uint64_t numel = 1;
  for (const auto& dim : *shape_it) {
    if (!dim.is_number_unsigned())
      bad(fmt::format("shape {} has an entry that is not a non-negative integer", shape_it->dump()));
    const uint64_t d = dim.get<uint64_t>();
    if (d > uint64_t(INT64_MAX) || __builtin_mul_overflow(numel, d, &numel))
      bad(fmt::format("shape {} is too large", shape_it->dump()));
    info.shape.push_back(int64_t(d));
  }
  uint64_t expected_bytes = 0;
  if (__builtin_mul_overflow(numel, uint64_t(dtype_size(info.dtype)), &expected_bytes))
    bad(fmt::format("shape {} is too large", shape_it->dump()));

  for (const auto& off : *offsets_it)
    if (!off.is_number_unsigned())
      bad(fmt::format("data_offsets {} are not non-negative integers", offsets_it->dump()));
  const uint64_t begin = (*offsets_it)[0].get<uint64_t>();
  const uint64_t end = (*offsets_it)[1].get<uint64_t>();
  if (end < begin) bad(fmt::format("data_offsets [{}, {}] end before they begin", begin, end));
  if (end > data_size)
    bad(fmt::format("data_offsets [{}, {}] run past the end of the data section ({} bytes; file truncated?)", begin,
                    end, data_size));
  if (end - begin != expected_bytes)
    bad(fmt::format("shape {} of {} needs {} bytes but data_offsets [{}, {}] span {}", shape_to_string(info.shape),
                    dtype_name, expected_bytes, begin, end, end - begin));
  info.offset = begin;
  info.nbytes = end - begin;
  return info;
}

}  // namespace

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_to_string(std::span<const int64_t> shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

SafetensorsLayout parse_safetensors(std::span<const std::byte> bytes, const std::string& label) {
  if (bytes.size() < 8)
    fail("{}: truncated file ({} bytes; a safetensors file starts with an 8-byte header length)", label, bytes.size());
  const uint64_t header_len = read_u64_le(bytes.data());
  if (header_len > bytes.size() - 8)
    fail("{}: header length {} runs past the end of the file ({} bytes; file truncated?)", label, header_len,
         bytes.size());
  if (header_len > kMaxHeaderBytes) fail("{}: header length {} exceeds the 100 MiB limit", label, header_len);

  const std::string_view header(reinterpret_cast<const char*>(bytes.data() + 8), header_len);
  if (const size_t bad = first_invalid_utf8(header); bad != std::string_view::npos)
    fail("{}: header is not valid UTF-8 (byte {} of the header)", label, bad);

  // Duplicate keys are legal JSON that nlohmann would silently collapse; the parse callback sees every key.
  std::vector<std::string> duplicates;
  std::set<std::string> seen;
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(
        header.begin(), header.end(), [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          if (depth == 1 && event == nlohmann::json::parse_event_t::key && parsed.is_string()) {
            auto key = parsed.get<std::string>();
            if (!seen.insert(key).second) duplicates.push_back(std::move(key));
          }
          return true;
        });
  } catch (const nlohmann::json::exception& e) {
    fail("{}: header is not valid JSON: {}", label, e.what());
  }
  if (!root.is_object()) fail("{}: header is not a JSON object", label);
  if (!duplicates.empty()) fail("{}: tensor {}: name appears more than once in the header", label, duplicates[0]);

  SafetensorsLayout layout;
  layout.data_start = 8 + header_len;
  const uint64_t data_size = bytes.size() - layout.data_start;
  for (const auto& [name, entry] : root.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) fail("{}: \"__metadata__\" is not a JSON object", label);
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) fail("{}: \"__metadata__\" entry {} is not a string", label, key);
        layout.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    layout.tensors.push_back(parse_entry(label, name, entry, data_size));
  }

  std::sort(layout.tensors.begin(), layout.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.nbytes < b.nbytes;
  });
  for (size_t i = 1; i < layout.tensors.size(); ++i) {
    const auto& prev = layout.tensors[i - 1];
    const auto& cur = layout.tensors[i];
    if (prev.offset + prev.nbytes > cur.offset && cur.nbytes > 0 && prev.nbytes > 0)
      fail("{}: tensor {}: bytes [{}, {}] overlap tensor {} at [{}, {}]", label, cur.name, cur.offset,
           cur.offset + cur.nbytes, prev.name, prev.offset, prev.offset + prev.nbytes);
  }
  for (auto& t : layout.tensors) t.offset += layout.data_start;
  return layout;
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path) : path_(path) {
  const std::string label = path.string();
  const int fd = ::open(label.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open: {}", label, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail("{}: cannot stat: {}", label, std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("{}: not a regular file", label);
  }
  size_ = uint64_t(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      fail("{}: cannot map {} bytes: {}", label, size_, std::strerror(err));
    }
    data_ = static_cast<const std::byte*>(p);
  }
  ::close(fd);
  try {
    layout_ = parse_safetensors(std::span<const std::byte>(data_, size_), label);
  } catch (...) {
    unmap();
    throw;
  }
  for (size_t i = 0; i < layout_.tensors.size(); ++i) index_.emplace(layout_.tensors[i].name, i);
}

SafetensorsFile::~SafetensorsFile() { unmap(); }

SafetensorsFile::SafetensorsFile(SafetensorsFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      layout_(std::move(other.layout_)),
      index_(std::move(other.index_)) {}

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& other) noexcept {
  if (this != &other) {
    unmap();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    layout_ = std::move(other.layout_);
    index_ = std::move(other.index_);
  }
  return *this;
}

void SafetensorsFile::unmap() {
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
  data_ = nullptr;
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &layout_.tensors[it->second];
}

const TensorInfo& SafetensorsFile::at(std::string_view name) const {
  const TensorInfo* t = find(name);
  if (!t) fail("{}: tensor {} not found", path_.string(), name);
  return *t;
}

std::span<const std::byte> SafetensorsFile::bytes(const TensorInfo& tensor) const {
  PLUMB_CHECK(tensor.offset + tensor.nbytes <= size_);
  return {data_ + tensor.offset, tensor.nbytes};
}

}  // namespace plumb::io
