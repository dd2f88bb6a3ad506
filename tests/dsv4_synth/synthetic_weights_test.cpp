// Synthetic layer weights at the tiny model's shapes: every planned layer tensor with its planned shape and size,
// experts aliased e mod D across blocks, FP8 codes never NaN, linears that keep their input's scale, clear errors.
#include <gmock/gmock.h>

#include <cmath>
#include <cstring>

#include "base/error.h"
#include "base/rng.h"
#include "kernels/weight_decode.h"
#include "model/dsv4/synthetic_weights.h"
#include "model/dsv4/tensor_plan.h"
#include "model/dsv4/tiny_checkpoint.h"
#include "test_support.h"

namespace plumb::test {
namespace {

using ::testing::HasSubstr;

TEST(SyntheticWeights, HoldEveryPlannedLayerTensorAtItsShapeAndSize) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});
  const dsv4::SyntheticWeights w(config, 3, 0);
  for (const dsv4::PlannedTensor& t : dsv4::plan_tensors(config)) {
    if (dsv4::is_vocab_table(t.name)) continue;
    const dsv4::TensorBytes b = w.at(t.name);
    EXPECT_EQ(b.shape, t.shape) << t.name;
    EXPECT_EQ(b.bytes.size(), t.nbytes()) << t.name;
  }
}

TEST(SyntheticWeights, ExpertsReadBufferEModDAcrossBlocks) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});  // 8 routed experts
  const dsv4::SyntheticWeights w(config, 3, 3);
  auto data = [&](int block, int expert, const char* tensor) {
    return w.at(fmt::format("layers.{}.ffn.experts.{}.{}", block, expert, tensor)).bytes.data();
  };
  EXPECT_EQ(data(0, 5, "w1.weight"), data(0, 2, "w1.weight"));  // 5 mod 3 = 2
  EXPECT_EQ(data(0, 5, "w1.weight"), data(4, 5, "w1.weight"));
  EXPECT_EQ(data(1, 7, "w2.scale"), data(3, 1, "w2.scale"));    // 7 mod 3 = 1
  EXPECT_NE(data(0, 0, "w1.weight"), data(0, 1, "w1.weight"));
  EXPECT_NE(data(0, 0, "w1.weight"), data(0, 0, "w3.weight"));
  EXPECT_EQ(w.distinct_experts(), 3);
}

TEST(SyntheticWeights, SameSeedSameBytesOtherSeedOtherBytes) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});
  const dsv4::SyntheticWeights a(config, 3, 4), b(config, 3, 4), c(config, 4, 4);
  for (const char* name : {"layers.2.attn.wq_b.weight", "layers.1.ffn.experts.6.w2.weight", "layers.0.ffn.gate.tid2eid"}) {
    const auto x = a.at(name).bytes, y = b.at(name).bytes, z = c.at(name).bytes;
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size()), 0) << name;
    EXPECT_NE(std::memcmp(x.data(), z.data(), x.size()), 0) << name;
  }
}

TEST(SyntheticWeights, Fp8CodesHaveExponentSixOrSevenAndAreNeverNan) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});
  const dsv4::SyntheticWeights w(config, 3, 0);
  size_t checked = 0;
  for (const dsv4::PlannedTensor& t : dsv4::plan_tensors(config)) {
    if (t.kind != dsv4::TensorKind::fp8_weight) continue;
    for (std::byte b : w.at(t.name).bytes) {
      const int exponent = (uint8_t(b) >> 3) & 0xF;
      ASSERT_TRUE(exponent == 6 || exponent == 7) << t.name << " code " << int(b);
      ASSERT_NE(uint8_t(b) & 0x7F, 0x7F) << t.name;
    }
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

// y = W x through the decoded weight (codes times scales) for x of RMS 1: the chosen scale keeps the output RMS
// within a factor 2 of the input's (the scale aims within sqrt(2); the draws of W and x add a few percent).
double output_rms(const kernels::Weight& w, uint64_t seed) {
  std::vector<double> x(size_t(w.cols));
  for (int64_t k = 0; k < w.cols; ++k) x[size_t(k)] = std::sqrt(3.0) * (2.0 * keyed_uniform(seed, uint64_t(k)) - 1.0);
  double sum = 0;
  for (int64_t r = 0; r < w.rows; ++r) {
    double y = 0;
    for (int64_t k = 0; k < w.cols; ++k) y += kernels::weight_value(w, r, k) * x[size_t(k)];
    sum += y * y;
  }
  return std::sqrt(sum / double(w.rows));
}

TEST(SyntheticWeights, LinearsKeepTheInputScale) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});
  const dsv4::SyntheticWeights s(config, 3, 0);
  auto weight = [&](const std::string& stem, kernels::WeightFormat format) {
    const dsv4::TensorBytes codes = s.at(stem + ".weight"), scales = s.at(stem + ".scale");
    const bool fp4 = format == kernels::WeightFormat::fp4_blocks;
    return kernels::Weight{.format = format,
                           .rows = codes.shape[0],
                           .cols = codes.shape[1] * (fp4 ? 2 : 1),
                           .data = codes.bytes.data(),
                           .scales = reinterpret_cast<const uint8_t*>(scales.bytes.data())};
  };
  for (const auto& [stem, format] : std::vector<std::pair<std::string, kernels::WeightFormat>>{
           {"layers.0.attn.wq_a", kernels::WeightFormat::fp8_blocks},
           {"layers.1.attn.wo_b", kernels::WeightFormat::fp8_blocks},
           {"layers.2.ffn.experts.3.w1", kernels::WeightFormat::fp4_blocks},
           {"layers.2.ffn.experts.3.w2", kernels::WeightFormat::fp4_blocks}}) {
    const double rms = output_rms(weight(stem, format), 11);
    EXPECT_GT(rms, 0.5) << stem;
    EXPECT_LT(rms, 2.0) << stem;
  }
}

TEST(SyntheticWeights, LookupsOutsideTheSetFailNamingTheTensor) {
  const dsv4::Config config = dsv4::tiny_config(dsv4::TinySpec{});
  const dsv4::SyntheticWeights w(config, 3, 0);
  EXPECT_THAT(error_of([&] { w.at("layers.0.attn.wq_z.weight"); }), HasSubstr("layers.0.attn.wq_z.weight"));
  EXPECT_THAT(error_of([&] { w.at("embed.weight"); }),
              AllOf(HasSubstr("embed.weight"), HasSubstr("not generated")));
  EXPECT_THAT(error_of([&] { w.lookup()("head.weight"); }), HasSubstr("head.weight"));
  EXPECT_THAT(error_of([&] { dsv4::SyntheticWeights(config, 3, 9); }),
              AllOf(HasSubstr("distinct experts"), HasSubstr("(8)"), HasSubstr("got 9")));
}

}  // namespace
}  // namespace plumb::test
