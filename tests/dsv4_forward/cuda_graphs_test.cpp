// CUDA graphs (kernels/cuda/launch_queue.h) change how the launches reach the device, never what they compute: the
// tiny model's logits over prefill chunks and then decode rounds of two slots are bit-identical with graphs off
// (PLUMB_CUDA_GRAPHS=0: every launch on its own) and on, and with graphs on the decode rounds were replayed from
// graphs (so the comparison did cover them); the same with more launch shapes than the graph cache holds. So do the
// fused rope ops (the rope inside the head norm and the P.V kernels) against their two ops each
// (PLUMB_FUSED_ROPE=0), the shared expert's add inside the experts' combine against combine, then add
// (PLUMB_FUSED_MOE_ADD=0), and the sublayer's input norm inside the mHC collapse against hc_pre, then rms_norm
// (PLUMB_FUSED_HC_NORM=0). Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cctype>
#include <string>

#include "kernels/cuda/device.h"
#include "tiny_model.h"

namespace plumb::test {
namespace {

struct TinyRun {
  std::vector<float> logits;
  std::string summary;
};

// The tiny model on CUDA with the A/B switch `name` on or off (read when the backend opens).
std::unique_ptr<dsv4::Dsv4Model> open_cuda(bool on, int32_t slots, int32_t max_rows,
                                           const char* name = "PLUMB_CUDA_GRAPHS") {
  if (on) {
    unsetenv(name);
  } else {
    setenv(name, "0", 1);
  }
  auto m = open_tiny(ModelCase{kernels::Numerics::release, "cuda"}, slots, max_rows, 512);
  unsetenv(name);
  return m;
}

TinyRun run_tiny(bool on, const char* name = "PLUMB_CUDA_GRAPHS") {
  const auto m = open_cuda(on, 2, 16, name);
  const int32_t vocab = int32_t(m->info().vocab_size);
  const auto a = random_tokens(31, 160, vocab), b = random_tokens(32, 160, vocab);
  TinyRun r;
  auto keep = [&](const std::vector<float>& v) { r.logits.insert(r.logits.end(), v.begin(), v.end()); };
  keep(run_chunks(*m, 0, a, 0, 40, {8}));  // prefill chunks
  keep(run_chunks(*m, 1, b, 0, 21, {5}));
  for (int64_t i = 0; i < 100; ++i) {  // decode rounds of two rows, the slots at different positions
    const std::vector<model::Row> rows{{0, 40 + i, a[size_t(40 + i)], true}, {1, 21 + i, b[size_t(21 + i)], true}};
    std::vector<float> logits(2 * size_t(vocab));
    m->forward(rows, logits);
    keep(logits);
  }
  r.summary = m->launch_summary();
  return r;
}

// The number before " <what>" in the summary, or -1.
int64_t count_in(const std::string& summary, const std::string& what) {
  const size_t at = summary.find(" " + what);
  if (at == std::string::npos) return -1;
  size_t begin = at;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(summary[begin - 1]))) --begin;
  return begin == at ? -1 : std::stoll(summary.substr(begin, at - begin));
}

TEST(CudaGraphs, LogitsAreBitIdenticalWithGraphsOnAndOff) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device on this machine";
  const TinyRun off = run_tiny(false), on = run_tiny(true);
  std::printf("graphs off: %s\ngraphs on:  %s\n", off.summary.c_str(), on.summary.c_str());
  EXPECT_EQ(count_in(off.summary, "replays"), 0) << off.summary;
  EXPECT_GE(count_in(on.summary, "replays"), 75) << on.summary;  // most decode rounds (a shape is replayed from its third round)
  ASSERT_EQ(off.logits.size(), on.logits.size());
  EXPECT_TRUE(bit_equal(off.logits, on.logits));
}

// A fused op against its default's separate ops, one A/B switch each (docs/cuda-graphs.md): the ropes inside the q
// norm and P.V kernels (PLUMB_FUSED_ROPE), the shared expert's add inside the routed experts' combine
// (PLUMB_FUSED_MOE_ADD), each sublayer's input norm inside the mHC collapse kernel (PLUMB_FUSED_HC_NORM).
class CudaFusedOp : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaFusedOp, LogitsAreBitIdenticalWithTheSwitchOnAndOff) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device on this machine";
  const TinyRun off = run_tiny(false, GetParam()), on = run_tiny(true, GetParam());
  ASSERT_EQ(off.logits.size(), on.logits.size());
  EXPECT_TRUE(bit_equal(off.logits, on.logits));
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaFusedOp,
                         ::testing::Values("PLUMB_FUSED_ROPE", "PLUMB_FUSED_MOE_ADD", "PLUMB_FUSED_HC_NORM"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// Launches of 1..40 rows, each four times in a row, rotating over three slots (a slot starts again at 0 before
// it would pass its context): far more launch shapes than the 32 graphs the queue keeps, so graphs are built,
// dropped least recently used and built again. The logits stay those of graphs off.
TinyRun run_many_shapes(bool graphs) {
  const auto m = open_cuda(graphs, 3, 64);
  const int32_t vocab = int32_t(m->info().vocab_size);
  const auto tokens = random_tokens(33, 512, vocab);
  std::vector<int64_t> position(3, 0);
  TinyRun r;
  int32_t slot = 0;
  for (int64_t k = 1; k <= 40; ++k) {
    for (int rep = 0; rep < 4; ++rep, slot = (slot + 1) % 3) {
      if (position[size_t(slot)] + k > 500) {
        m->reset_slot(slot);
        position[size_t(slot)] = 0;
      }
      const std::vector<float> v = run_chunks(*m, slot, tokens, position[size_t(slot)], position[size_t(slot)] + k, {k});
      r.logits.insert(r.logits.end(), v.begin(), v.end());
      position[size_t(slot)] += k;
    }
  }
  r.summary = m->launch_summary();
  return r;
}

TEST(CudaGraphs, MoreShapesThanTheCacheHoldsKeepTheBits) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device on this machine";
  const TinyRun off = run_many_shapes(false), on = run_many_shapes(true);
  std::printf("graphs on: %s\n", on.summary.c_str());
  EXPECT_GT(count_in(on.summary, "built"), 32) << on.summary;  // the cache of 32 had to drop graphs
  EXPECT_GT(count_in(on.summary, "replays"), 0) << on.summary;
  ASSERT_EQ(off.logits.size(), on.logits.size());
  EXPECT_TRUE(bit_equal(off.logits, on.logits));
}

}  // namespace
}  // namespace plumb::test
