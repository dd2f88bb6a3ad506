// SHA-256 against digests from Python's hashlib; Philox4x32-10 against Random123's known-answer vectors.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/rng.h"
#include "base/sha256.h"
#include "base/thread_pool.h"

namespace plumb {
namespace {

TEST(Sha256, KnownDigests) {
  const auto abc = sha256("abc", 3);
  EXPECT_EQ(to_hex(abc), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(token_sha256({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::vector<int32_t> ids = {1, 2, 128803};  // hashlib.sha256(struct.pack('<3I', 1, 2, 128803))
  EXPECT_EQ(token_sha256(ids), "16f78e2dfff7facf58d45eec5d9c858281c49147f976f10091683c512d3be480");
}

TEST(Philox, Random123KnownAnswers) {
  using A4 = std::array<uint32_t, 4>;
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}), (A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}), (A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, KeyedUniformIsAPureFunction) {
  EXPECT_EQ(keyed_uniform(7, 100), keyed_uniform(7, 100));
  EXPECT_NE(keyed_uniform(7, 100), keyed_uniform(7, 101));
  EXPECT_NE(keyed_uniform(7, 100), keyed_uniform(8, 100));
  double lo = 1, hi = 0;
  for (uint64_t p = 0; p < 10000; ++p) {
    const double u = keyed_uniform(42, p);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  EXPECT_LT(lo, 0.001);
  EXPECT_GT(hi, 0.999);
}

TEST(ThreadPool, RunsEveryTaskOnceAndRethrows) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(1000);
  pool.run(hits.size(), [&](size_t i) { hits[i]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_THROW(pool.run(10, [](size_t i) { if (i == 7) fail("task {}", i); }), Error);
  std::atomic<int> after{0};
  pool.run(5, [&](size_t) { after++; });
  EXPECT_EQ(after.load(), 5);
}

TEST(ThreadPool, ChunksCoverTheRange) {
  std::vector<int> seen(103, 0);
  parallel_for_chunks(seen.size(), 10, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) seen[i]++;
  });
  for (int v : seen) EXPECT_EQ(v, 1);
}

}  // namespace
}  // namespace plumb
