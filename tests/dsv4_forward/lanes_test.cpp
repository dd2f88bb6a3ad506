// The forward's lane hints (Backend::begin_lane): the ops it puts on side lanes, which a CUDA graph runs beside
// lane 0, never touch bytes that an op they may run beside writes (kernels/lane_check_backend.h), for prefill chunks
// of several sizes in two slots, MTP drafts and a restored snapshot on the tiny model (window, CSA and HCA layers).
// The checker's own controls: hazards planted on purpose are found, and the same ops with a join are clean.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "base/error.h"
#include "kernels/backend.h"
#include "kernels/lane_check_backend.h"
#include "kernels/observed_backend.h"
#include "tiny_model.h"

namespace plumb::test {
namespace {

TEST(Lanes, TheForwardsSideLanesTouchNothingTheyMayRunBeside) {
  kernels::LaneReport report;
  const auto m = dsv4::Dsv4Model::open(tiny_checkpoint_dir(), {.numerics = kernels::Numerics::release,
                                                               .backend = "cpu",
                                                               .slots = 3,
                                                               .max_context = 512,
                                                               .name = "tiny",
                                                               .check_lanes = &report});
  const int32_t vocab = m->info().vocab_size;
  const auto tokens = random_tokens(41, 70, vocab), other = random_tokens(42, 20, vocab);
  run_chunks(*m, 0, tokens, 0, 40, {1, 16, 7, 16});
  run_chunks(*m, 1, other, 0, 20, {20});
  std::vector<model::DraftRow> rows;
  for (int64_t q = 0; q < 8; ++q) rows.push_back({0, q, tokens[size_t(q + 1)], false});
  std::vector<float> drafts(rows.size() * size_t(vocab));
  m->draft_forward(rows, drafts);
  m->restore(2, m->snapshot(0));
  run_chunks(*m, 2, tokens, 40, 70, {1, 1, 28});

  for (const std::string& h : report.hazards) ADD_FAILURE() << h;
  // Not vacuous: every lane ran ops (lanes 2 and 4 only in CSA layers, lane 3 only with a compressor).
  for (size_t lane = 0; lane < report.ops.size(); ++lane) EXPECT_GT(report.ops[lane], 0) << "lane " << lane;
}

// An op observer that throws once, when the named op begins (a device failure in the middle of a round).
class ThrowOnce : public kernels::OpObserver {
 public:
  explicit ThrowOnce(std::string op) : op_(std::move(op)) {}
  void begin(kernels::Backend&, const char* op, const void*) override {
    if (thrown == 0 && op_ == op) {
      ++thrown;
      fail("{} failed on the device (planted)", op);
    }
  }
  int thrown = 0;

 private:
  std::string op_;
};

// A round that throws on a side lane (the first compressor, lane 3, with lane 1's window key issued and not yet
// joined) leaves the backend on lane 0 and the next, wider round ordered after what the failed one issued: no hazard
// (without the join at the round's start, its embed and norms would overwrite lane 1's tensors), and a fresh slot's
// logits equal a model's that never failed.
TEST(Lanes, ARoundThatThrowsInsideALaneLeavesTheModelOrderedAndExact) {
  ThrowOnce thrower("compress_project");
  kernels::LaneReport report;
  auto open = [&](kernels::OpObserver* observer, kernels::LaneReport* lanes) {
    return dsv4::Dsv4Model::open(tiny_checkpoint_dir(), {.numerics = kernels::Numerics::release,
                                                         .backend = "cpu",
                                                         .slots = 2,
                                                         .max_context = 128,
                                                         .name = "tiny",
                                                         .op_observer = observer,
                                                         .check_lanes = lanes});
  };
  const auto failing = open(&thrower, &report), plain = open(nullptr, nullptr);
  const int32_t vocab = failing->info().vocab_size;
  const auto tokens = random_tokens(43, 4, vocab), other = random_tokens(44, 20, vocab);
  EXPECT_THROW(run_chunks(*failing, 0, tokens, 0, 4, {4}), Error);
  EXPECT_EQ(thrower.thrown, 1);
  EXPECT_TRUE(bit_equal(run_chunks(*failing, 1, other, 0, 20, {16, 4}), run_chunks(*plain, 1, other, 0, 20, {16, 4})));
  for (const std::string& h : report.hazards) ADD_FAILURE() << h;
}

// Three host tensors and the checker around a host backend.
struct Planted {
  kernels::LaneReport report;
  std::unique_ptr<kernels::Backend> be =
      kernels::make_lane_check_backend(kernels::make_host_backend(kernels::Numerics::release), &report);
  kernels::Buffer buf = be->allocate(3 * 64 * sizeof(float));
  kernels::Tensor t(int i) const {
    return kernels::Tensor::of(static_cast<float*>(buf.data()) + 64 * i, DType::dtype_f32, 1, 64);
  }
};

TEST(Lanes, TheCheckerFindsPlantedHazardsAndAcceptsJoins) {
  {  // lane 0 reads what lane 1 writes, without a join
    Planted p;
    p.be->begin_lane(1);
    p.be->add(p.t(0), p.t(0), p.t(1));
    p.be->end_lane();
    p.be->add(p.t(1), p.t(1), p.t(2));
    ASSERT_EQ(p.report.hazards.size(), 1u);
    EXPECT_NE(p.report.hazards[0].find("reads what the earlier writes"), std::string::npos) << p.report.hazards[0];
  }
  {  // the same with the join: clean
    Planted p;
    p.be->begin_lane(1);
    p.be->add(p.t(0), p.t(0), p.t(1));
    p.be->end_lane();
    p.be->join_lanes();
    p.be->add(p.t(1), p.t(1), p.t(2));
    EXPECT_TRUE(p.report.hazards.empty());
  }
  {  // two side lanes write one tensor; a later lane-0 op after the join follows both
    Planted p;
    for (int lane : {1, 2}) {
      p.be->begin_lane(lane);
      p.be->add(p.t(0), p.t(0), p.t(2));
      p.be->end_lane();
    }
    p.be->join_lanes();
    p.be->add(p.t(2), p.t(2), p.t(1));
    ASSERT_EQ(p.report.hazards.size(), 1u);
    EXPECT_NE(p.report.hazards[0].find("both write"), std::string::npos) << p.report.hazards[0];
  }
  {  // a side lane writes what lane 0 read before the fork: it follows that read, clean; lane 0 overwriting what
     // the side lane reads, before a join, is not
    Planted p;
    p.be->add(p.t(0), p.t(0), p.t(1));
    p.be->begin_lane(3);
    p.be->add(p.t(1), p.t(1), p.t(0));
    p.be->end_lane();
    EXPECT_TRUE(p.report.hazards.empty());
    p.be->add(p.t(2), p.t(2), p.t(1));
    ASSERT_EQ(p.report.hazards.size(), 1u);
    EXPECT_NE(p.report.hazards[0].find("writes what the earlier reads"), std::string::npos) << p.report.hazards[0];
  }
  {  // a download ends everything before it, as the CUDA backend's flush does
    Planted p;
    p.be->begin_lane(1);
    p.be->add(p.t(0), p.t(0), p.t(1));
    p.be->end_lane();
    std::vector<float> host(64);
    p.be->download(p.t(2), host.data());
    p.be->add(p.t(1), p.t(1), p.t(2));
    EXPECT_TRUE(p.report.hazards.empty());
  }
}

}  // namespace
}  // namespace plumb::test
