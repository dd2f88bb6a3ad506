// The CUDA backend against the CPU backend, both release numerics, on the tiny model (issue: GPU release numerics
// against CPU release numerics). The two differ only in float32 summation orders, which bf16 roundings and near-tie
// routing or indexer choices can amplify, so the comparison is a tolerance and a greedy-agreement rate, reported;
// exactness is within one backend (the other tests). Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tiny_model.h"

namespace plumb::test {
namespace {

TEST(CudaVsCpu, ReleaseLogitsAgreeOnGreedyTokens) {
  const ModelCase gpu{kernels::Numerics::release, "cuda"};
  PLUMB_SKIP_UNLESS_BACKEND(gpu);
  const auto cuda_model = open_tiny(gpu, 1, 64, 512);
  const auto cpu_model = open_tiny(kernels::Numerics::release, 1, 64, 512);
  const size_t vocab = size_t(cpu_model->info().vocab_size);
  int64_t positions = 0, agree = 0;
  double worst = 0, sum = 0;
  for (uint64_t prompt = 0; prompt < 8; ++prompt) {
    const auto tokens = random_tokens(100 + prompt, 256, int32_t(vocab));
    cuda_model->reset_slot(0);
    cpu_model->reset_slot(0);
    const auto a = run_chunks(*cuda_model, 0, tokens, 0, 256, {64});
    const auto b = run_chunks(*cpu_model, 0, tokens, 0, 256, {64});
    for (size_t p = 0; p < 256; ++p) {
      const float* x = a.data() + p * vocab;
      const float* y = b.data() + p * vocab;
      double err = 0, scale = 0;
      for (size_t v = 0; v < vocab; ++v) {
        err = std::max(err, double(std::fabs(x[v] - y[v])));
        scale = std::max(scale, double(std::fabs(y[v])));
      }
      worst = std::max(worst, err / scale);
      sum += err / scale;
      agree += (std::max_element(x, x + vocab) - x) == (std::max_element(y, y + vocab) - y);
      ++positions;
    }
  }
  std::printf("cuda vs cpu release: %lld positions, greedy agreement %lld (%.1f%%), max rel err %.3g, mean %.3g\n",
              (long long)positions, (long long)agree, 100.0 * double(agree) / double(positions), worst,
              sum / double(positions));
  EXPECT_GE(positions, 2000);
  EXPECT_GE(double(agree), 0.95 * double(positions));
}

}  // namespace
}  // namespace plumb::test
