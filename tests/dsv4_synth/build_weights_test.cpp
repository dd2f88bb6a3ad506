// build_weights from a lookup: identical host bytes are uploaded once (seen through the host backend, which copies
// misaligned weights), the layers alone leave the vocabulary tables out, and a tensor whose bytes do not fit its
// shape is named. load_weights on a folder is covered by the checkpoint and forward tests.
#include <gmock/gmock.h>

#include <cstring>

#include "base/error.h"
#include "kernels/backend.h"
#include "model/dsv4/synthetic_weights.h"
#include "model/dsv4/tiny_checkpoint.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using ::testing::HasSubstr;

TEST(BuildWeights, IdenticalHostBytesAreUploadedOnce) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});
  const dsv4::SyntheticWeights synthetic(config, 5, 0);
  // Every block's hc_attn_scale reads the same f32 bytes, one byte off alignment: the host backend copies them.
  std::vector<std::byte> shared(13);
  const float scale[3] = {0.5f, 0.5f, 0.5f};
  std::memcpy(shared.data() + 1, scale, 12);
  const dsv4::TensorLookup lookup = [&](const std::string& name) {
    if (name.ends_with("hc_attn_scale")) return dsv4::TensorBytes{{3}, std::span(shared).subspan(1, 12)};
    return synthetic.at(name);
  };
  auto backend = kernels::make_host_backend(kernels::Numerics::release);
  const dsv4::ModelWeights w = dsv4::build_weights(lookup, config, *backend, {}, dsv4::VocabTables::skip);
  ASSERT_EQ(w.blocks.size(), size_t(config.num_blocks()));
  const void* first = w.blocks[0].hc_attn.scale.data;
  EXPECT_NE(first, static_cast<const void*>(shared.data() + 1)) << "the host backend was expected to copy";
  for (const dsv4::BlockWeights& b : w.blocks) EXPECT_EQ(b.hc_attn.scale.data, first);
  EXPECT_NE(w.blocks[0].hc_ffn.scale.data, first);
}

TEST(BuildWeights, LayersAloneLeaveTheVocabularyTablesOut) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});
  const dsv4::SyntheticWeights synthetic(config, 5, 3);
  auto backend = kernels::make_host_backend(kernels::Numerics::release);
  std::vector<std::string> asked;
  const dsv4::TensorLookup lookup = [&](const std::string& name) {
    asked.push_back(name);
    return synthetic.at(name);
  };
  const dsv4::ModelWeights w = dsv4::build_weights(lookup, config, *backend, {}, dsv4::VocabTables::skip);
  EXPECT_FALSE(w.embed.present());
  EXPECT_FALSE(w.head.present());
  EXPECT_TRUE(w.norm.present());
  EXPECT_EQ(std::count(asked.begin(), asked.end(), "embed.weight"), 0);
  // Routed expert 5 reads distinct expert 5 mod 3 = 2, in every block.
  EXPECT_EQ(w.blocks[0].experts[5].w1.data, w.blocks[3].experts[2].w1.data);
  EXPECT_NE(w.blocks[0].experts[5].w1.data, w.blocks[0].experts[4].w1.data);
}

TEST(BuildWeights, BytesThatDoNotFitTheShapeAreNamed) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});
  const dsv4::SyntheticWeights synthetic(config, 5, 0);
  const dsv4::TensorLookup lookup = [&](const std::string& name) {
    dsv4::TensorBytes t = synthetic.at(name);
    if (name == "layers.1.attn.wq_b.scale") t.bytes = t.bytes.first(t.bytes.size() - 1);
    return t;
  };
  auto backend = kernels::make_host_backend(kernels::Numerics::release);
  EXPECT_THAT(error_of([&] { dsv4::build_weights(lookup, config, *backend, {}, dsv4::VocabTables::skip); }),
              HasSubstr("tensor layers.1.attn.wq_b.scale"));
}

}  // namespace
}  // namespace plumb::test
