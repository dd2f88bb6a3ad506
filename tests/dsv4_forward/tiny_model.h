// Shared by the forward tests: one gen-tiny checkpoint for all of them, models
// opened on it with either numerics, and helpers that run a slot's tokens in given chunkings.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "base/rng.h"
#include "kernels/cuda/device.h"
#include "model/dsv4/dsv4_model.h"
#include "model/dsv4/tiny_checkpoint.h"

namespace plumb::test {

// Written once per build into <build>/test-data (keyed by the generator version) and shared by every test process;
// a process that loses the race to create it drops its own copy.
inline const std::filesystem::path& tiny_checkpoint_dir() {
  static const std::filesystem::path dir = [] {
    const auto root = std::filesystem::path(PLUMB_BINARY).parent_path() / "test-data";
    const auto final_dir = root / ("tiny-dsv4-v" + std::to_string(dsv4::kTinyGeneratorVersion) + "-seed7");
    if (std::filesystem::is_regular_file(final_dir / "config.json")) return final_dir;
    std::filesystem::create_directories(root);
    const auto tmp = root / (".tiny-" + std::to_string(::getpid()));
    std::filesystem::remove_all(tmp);
    dsv4::TinySpec spec;
    spec.seed = 7;
    dsv4::write_tiny_checkpoint(tmp, spec);
    std::error_code ec;
    std::filesystem::rename(tmp, final_dir, ec);
    if (ec) std::filesystem::remove_all(tmp, ec);
    return final_dir;
  }();
  return dir;
}

inline std::unique_ptr<dsv4::Dsv4Model> open_tiny(kernels::Numerics numerics, int32_t slots = 3,
                                                 int32_t max_rows = 64, int64_t max_context = 512) {
  return dsv4::Dsv4Model::open(tiny_checkpoint_dir(), {.numerics = numerics,
                                                        .slots = slots,
                                                        .max_rows_per_slot = max_rows,
                                                        .max_context = max_context,
                                                        .name = "tiny"});
}

// What the exactness tests run on: the CPU backend in either numerics, or the CUDA backend (release numerics),
// which skips on machines without a GPU.
struct ModelCase {
  kernels::Numerics numerics = kernels::Numerics::release;
  const char* backend = "cpu";
};
inline std::string model_case_name(const ModelCase& c) {
  return std::string(c.backend) == "cuda" ? "cuda" : kernels::numerics_name(c.numerics);
}
inline std::vector<ModelCase> model_cases() {
  return {{kernels::Numerics::release, "cpu"}, {kernels::Numerics::oracle, "cpu"}, {kernels::Numerics::release, "cuda"}};
}
#define PLUMB_SKIP_UNLESS_BACKEND(c)                                               \
  if (std::string((c).backend) == "cuda" && !::plumb::cuda::device_available()) \
  GTEST_SKIP() << "no CUDA device on this machine"

inline std::unique_ptr<dsv4::Dsv4Model> open_tiny(const ModelCase& c, int32_t slots = 3, int32_t max_rows = 64,
                                                 int64_t max_context = 512) {
  return dsv4::Dsv4Model::open(tiny_checkpoint_dir(), {.numerics = c.numerics,
                                                        .backend = c.backend,
                                                        .slots = slots,
                                                        .max_rows_per_slot = max_rows,
                                                        .max_context = max_context,
                                                        .name = "tiny"});
}

// Token ids drawn from a seed, avoiding nothing: any id of the vocabulary is valid input.
inline std::vector<int32_t> random_tokens(uint64_t seed, int64_t n, int32_t vocab) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) t[size_t(i)] = int32_t(keyed_uniform(seed, uint64_t(i)) * vocab);
  return t;
}

// Runs tokens [begin, end) of `tokens` into `slot` in launches of the given sizes (cycled), collecting every row's
// logits in order.
inline std::vector<float> run_chunks(model::Model& m, int32_t slot, const std::vector<int32_t>& tokens, int64_t begin,
                                     int64_t end, const std::vector<int64_t>& chunks) {
  const size_t vocab = size_t(m.info().vocab_size);
  std::vector<float> out;
  size_t c = 0;
  for (int64_t p = begin; p < end;) {
    const int64_t n = std::min(chunks[c++ % chunks.size()], end - p);
    std::vector<model::Row> rows;
    for (int64_t i = 0; i < n; ++i) rows.push_back({slot, p + i, tokens[size_t(p + i)], true});
    std::vector<float> logits(size_t(n) * vocab);
    m.forward(rows, logits);
    out.insert(out.end(), logits.begin(), logits.end());
    p += n;
  }
  return out;
}

inline bool bit_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace plumb::test
