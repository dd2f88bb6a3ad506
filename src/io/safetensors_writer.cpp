// The safetensors writer: header JSON (keys sorted by nlohmann's std::map, so the bytes are reproducible), then the
// tensors' bytes, widest element type first so each tensor is aligned to its element size.
#include "io/safetensors_writer.h"

#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "io/safetensors_reader.h"

namespace plumb::io {

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorData>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  const std::string label = path.string();
  std::vector<const TensorData*> order;
  for (const auto& t : tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const TensorData* a, const TensorData* b) {
    const size_t sa = dtype_size(a->dtype), sb = dtype_size(b->dtype);
    return sa != sb ? sa > sb : a->name < b->name;
  });

  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const TensorData& t = *order[i];
    if (t.name == "__metadata__") fail("{}: a tensor may not be named __metadata__", label);
    if (header.contains(t.name)) fail("{}: tensor {} given twice", label, t.name);
    uint64_t numel = 1;
    for (int64_t d : t.shape) {
      if (d < 0) fail("{}: tensor {}: negative dimension in shape {}", label, t.name, shape_to_string(t.shape));
      numel *= uint64_t(d);
    }
    if (numel * dtype_size(t.dtype) != t.bytes.size())
      fail("{}: tensor {}: shape {} of {} needs {} bytes, {} given", label, t.name, shape_to_string(t.shape),
           dtype_name(t.dtype), numel * dtype_size(t.dtype), t.bytes.size());
    header[t.name] = {{"dtype", std::string(dtype_name(t.dtype))},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string text = header.dump();
  text.resize((text.size() + 7) / 8 * 8, ' ');

  const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) fail("{}: cannot create {}: {}", label, tmp.string(), std::strerror(errno));
  unsigned char len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
  bool ok = std::fwrite(len_bytes, 1, 8, f) == 8 && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  for (const TensorData* t : order) ok = ok && std::fwrite(t->bytes.data(), 1, t->bytes.size(), f) == t->bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    const int err = errno;
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    fail("{}: write failed: {}", label, std::strerror(err));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    fail("{}: cannot rename the finished file into place: {}", label, why);
  }
}

}  // namespace plumb::io
