// The production entries can fail, and cover what they claim: bound to a deliberately wrong backend (the CPU
// backend with one op broken), the real fp8_linear and rms_norm entries turn gate 1, 2 or 3 red and make the run's
// exit status non-zero; every planted control compiled into the CPU (and CUDA) kernels is run by some registered
// kernel; the kernel families of the issue are all registered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "kernels/contract/contract_main.h"
#include "kernels/contract/entries.h"
#include "kernels/control.h"

namespace plumb::contract {
namespace {

using namespace kernels;

// The CPU backend with every op forwarded; subclasses break one.
class ForwardingBackend : public Backend {
 public:
  const char* name() const override { return "wrong"; }
  Numerics numerics() const override { return Numerics::release; }
  DType act_dtype() const override { return cpu_->act_dtype(); }
  Buffer allocate(size_t bytes) override { return cpu_->allocate(bytes); }
  Weight upload_weight(const Weight& host) override { return cpu_->upload_weight(host); }
  void download(const Tensor& src, void* host) override { cpu_->download(src, host); }
  void upload(const void* host, const Tensor& dst) override { cpu_->upload(host, dst); }
  void download_f32(const Tensor& src, float* host) override { cpu_->download_f32(src, host); }
  void copy_rows(const Tensor& src, std::span<const int64_t> sr, const Tensor& dst, std::span<const int64_t> dr) override {
    cpu_->copy_rows(src, sr, dst, dr);
  }
  void embed(const Weight& t, std::span<const int32_t> tokens, int64_t copies, const Tensor& out) override {
    cpu_->embed(t, tokens, copies, out);
  }
  void linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) override { cpu_->linear(p, w, x, y); }
  void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) override { cpu_->rms_norm(p, w, x, y); }
  void head_rms_norm(HeadNormParams p, const Tensor& x) override { cpu_->head_rms_norm(p, x); }
  void rope(RopeParams p, std::span<const int64_t> positions, const Tensor& x) override { cpu_->rope(p, positions, x); }
  void quant_sim(QuantSimParams p, const Tensor& x) override { cpu_->quant_sim(p, x); }
  void hadamard(HadamardParams p, const Tensor& x) override { cpu_->hadamard(p, x); }
  void hc_pre(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y, const Tensor& post,
              const Tensor& comb) override {
    cpu_->hc_pre(p, w, x, y, post, comb);
  }
  void hc_post(HcParams p, const Tensor& f, const Tensor& x, const Tensor& post, const Tensor& comb,
               const Tensor& out) override {
    cpu_->hc_post(p, f, x, post, comb, out);
  }
  void hc_head(HcParams p, const HcWeights& w, const Tensor& x, const Tensor& y) override { cpu_->hc_head(p, w, x, y); }
  void compress_project(CompressParams p, const CompressorWeights& w, std::span<const int64_t> positions,
                        const Tensor& x, const Tensor& kv, const Tensor& score) override {
    cpu_->compress_project(p, w, positions, x, kv, score);
  }
  void compress_pool(CompressParams p, const Tensor& kv, const Tensor& score, std::span<const CompressRow> rows,
                     const Tensor& out) override {
    cpu_->compress_pool(p, kv, score, rows, out);
  }
  void indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                    std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) override {
    cpu_->indexer_topk(p, q, w, index_rows, rows, selected, margin);
  }
  void attention(AttentionParams p, const Tensor& q, const Tensor& ring, const Tensor& compressed,
                 const Tensor* selected, const Weight& sinks, std::span<const TokenRow> rows,
                 const Tensor& out) override {
    cpu_->attention(p, q, ring, compressed, selected, sinks, rows, out);
  }
  void route(RouterParams p, const RouterWeights& w, const Tensor& x, std::span<const int32_t> tokens,
             const Tensor& ids, const Tensor& weights, const Tensor* margin) override {
    cpu_->route(p, w, x, tokens, ids, weights, margin);
  }
  void routed_experts(ExpertParams p, std::span<const ExpertWeights> experts, const Tensor& x, const Tensor& ids,
                      const Tensor& weights, const Tensor& out) override {
    cpu_->routed_experts(p, experts, x, ids, weights, out);
  }
  void shared_expert(ExpertParams p, const ExpertWeights& w, const Tensor& x, const Tensor& out) override {
    cpu_->shared_expert(p, w, x, out);
  }
  void add(const Tensor& a, const Tensor& b, const Tensor& out) override { cpu_->add(a, b, out); }

 protected:
  std::unique_ptr<Backend> cpu_ = make_host_backend(Numerics::release);
};

// A linear whose outputs are 1% too large.
class ScaledLinearBackend : public ForwardingBackend {
 public:
  void linear(LinearParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    cpu_->linear(p, w, x, y);
    for (int64_t r = 0; r < y.rows; ++r)
      for (int64_t c = 0; c < y.cols; ++c) y.row<float>(r)[c] *= 1.01f;
  }
};

// An RMSNorm whose result depends, far below its error bound, on how many rows share the launch (as a reduction
// split by the row count would).
class RowCountNormBackend : public ForwardingBackend {
 public:
  void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    cpu_->rms_norm(p, w, x, y);
    for (int64_t r = 0; r < y.rows; ++r)
      for (int64_t c = 0; c < y.cols; ++c) y.row<float>(r)[c] *= 1.0f + float(y.rows - 1) * 0x1p-20f;
  }
};

// An RMSNorm that never writes its last column.
class LastColumnUnwrittenBackend : public ForwardingBackend {
 public:
  void rms_norm(RmsNormParams p, const Weight& w, const Tensor& x, const Tensor& y) override {
    std::vector<float> all(size_t(y.rows * y.cols));
    cpu_->rms_norm(p, w, x, Tensor::of(all.data(), DType::dtype_f32, y.rows, y.cols));
    for (int64_t r = 0; r < y.rows; ++r)
      for (int64_t c = 0; c + 1 < y.cols; ++c) y.row<float>(r)[c] = all[size_t(r * y.cols + c)];
  }
};

template <typename B>
Binding wrong_binding() {
  return {"wrong", [] { return std::unique_ptr<Backend>(std::make_unique<B>()); }, "", true};
}

TEST(ProductionEntries, AWrongLinearTurnsGate2RedAndTheRunFails) {
  KernelSpec spec = fp8_linear_entry(wrong_binding<ScaledLinearBackend>());
  spec.shapes.erase(spec.shapes.begin() + 1, spec.shapes.end());  // the tiny shape
  spec.controls.clear();
  const GateOutcome g = run_gates(spec, 1, true);
  EXPECT_FALSE(g.pass[1]) << "gate 2 should see a 1% error against a 2^-8 bound";
  EXPECT_GT(g.worst_error, 0.009);
  std::FILE* sink = std::tmpfile();
  EXPECT_NE(contract_main({spec}, ContractCliOptions{}, sink), 0);
  std::fclose(sink);
}

TEST(ProductionEntries, ARowCountDependentNormTurnsGate3RedWithGate2Green) {
  KernelSpec spec = rms_norm_entry(wrong_binding<RowCountNormBackend>());
  spec.controls.clear();
  const GateOutcome g = run_gates(spec, 1, true);
  EXPECT_TRUE(g.pass[1]) << g.first_failure;  // 15 x 2^-20 is far inside the bound
  EXPECT_FALSE(g.pass[2]) << "gate 3 should see a row differ from itself launched alone";
  std::FILE* sink = std::tmpfile();
  EXPECT_NE(contract_main({spec}, ContractCliOptions{}, sink), 0);
  std::fclose(sink);
}

TEST(ProductionEntries, AnUnwrittenOutputTurnsGate1Red) {
  // The entries poison the backend's output memory before each op: a value left alone reads back as never written.
  KernelSpec spec = rms_norm_entry(wrong_binding<LastColumnUnwrittenBackend>());
  spec.controls.clear();
  const GateOutcome g = run_gates(spec, 1, true);
  EXPECT_FALSE(g.pass[0]);
  EXPECT_NE(g.first_failure.find("never written"), std::string::npos) << g.first_failure;
}

TEST(ProductionEntries, TheCpuBackendPassesTheSameEntries) {
  for (KernelSpec spec : {fp8_linear_entry(cpu_binding()), rms_norm_entry(cpu_binding())}) {
    spec.shapes.erase(spec.shapes.begin() + 1, spec.shapes.end());
    const GateOutcome g = run_gates(spec, 1, true);
    EXPECT_TRUE(g.pass[0] && g.pass[1] && g.pass[2] && g.pass[3]) << spec.name << ": " << g.first_failure;
  }
}

TEST(ProductionEntries, EveryCpuControlIsRunByARegisteredKernel) {
  const auto kernels = production_kernels("cpu");
  std::set<std::string> listed;
  for (const auto& k : kernels) listed.insert(k.controls.begin(), k.controls.end());
  int cpu_controls = 0;
  for (const auto& c : all_controls()) {
    const bool cuda = c.kernel.size() > 5 && c.kernel.compare(c.kernel.size() - 5, 5, "_cuda") == 0;
    if (cuda || c.kernel.rfind("test_", 0) == 0) continue;
    ++cpu_controls;
    EXPECT_TRUE(listed.count(c.full_name())) << c.full_name() << " is compiled in but no kernel runs it";
  }
  EXPECT_GE(cpu_controls, 40);
  for (const auto& name : listed) EXPECT_TRUE(find_control(name)) << name << " is listed but not compiled in";
}

TEST(ProductionEntries, EveryCudaControlIsRunByAKernelOfTheCudaList) {
#ifndef PLUMB_HAVE_CUDA
  GTEST_SKIP() << "built without CUDA: no CUDA controls are compiled in";
#else
  // The list production_kernels("cuda") returns on a GPU (building specs creates no backend).
  std::vector<KernelSpec> kernels = backend_kernels(cuda_binding());
  kernels.push_back(fp8_linear_cuda_entry());
  kernels.push_back(fp4_experts_cuda_entry());
  std::set<std::string> listed;
  for (const auto& k : kernels) listed.insert(k.controls.begin(), k.controls.end());
  int cuda_controls = 0;
  for (const auto& c : all_controls()) {
    if (c.kernel.size() <= 5 || c.kernel.compare(c.kernel.size() - 5, 5, "_cuda") != 0) continue;
    ++cuda_controls;
    EXPECT_TRUE(listed.count(c.full_name())) << c.full_name() << " is compiled in but no CUDA kernel runs it";
  }
  EXPECT_GE(cuda_controls, 20);
#endif
}

TEST(ProductionEntries, EveryKernelFamilyOfTheIssueIsRegistered) {
  std::set<std::string> names;
  for (const auto& k : production_kernels("cpu")) names.insert(k.name);
  for (const char* want : {"fp8_linear", "fp4_experts", "act_quant", "window_attention", "sparse_attention",
                           "compressor_project", "compressor_pool", "indexer_topk", "mhc_pre", "mhc_pre_weights",
                           "mhc_post", "rms_norm", "rope", "router_ids", "router_weights", "sampling"})
    EXPECT_TRUE(names.count(want)) << want;
}

}  // namespace
}  // namespace plumb::contract
