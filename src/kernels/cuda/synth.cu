// The CUDA kernel classes of `plumb synth`: the copy bandwidth, FP8 dense linears (wo_a among them) and routed
// FP4 experts at release widths, each timed alone as a CUDA graph (synth_timing.cu), then what one launch can do at
// all (synth_floors.cu).
#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "base/error.h"
#include "base/rng.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device.h"
#include "kernels/cuda/fp4_experts.h"
#include "kernels/cuda/fp8_linear.h"
#include "kernels/cuda/ops_cuda.h"
#include "kernels/cuda/synth.h"
#include "kernels/cuda/synth_floors.cuh"
#include "kernels/cuda/synth_timing.cuh"

namespace plumb::cuda {
namespace {

// The bandwidth ceiling kernels can reach: an SM copy with 16-byte accesses (a graph's memcpy node may use the
// slower copy engines).
__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) dst[i] = src[i];
}

// Random bytes, eight from each splitmix64 draw (a std::mt19937_64 draw a byte took about 16 s on the host for the
// experts' 3.2 GB, in every `synth --only kernels`); FP8 codes avoid NaN (0x7f and 0xff become 0x3f). The kernels'
// times do not depend on the values.
void fill_random(DeviceBuffer& buf, uint64_t seed, bool fp8_codes) {
  std::vector<uint8_t> h(buf.bytes());
  uint64_t state = seed;
  for (size_t i = 0; i < h.size(); i += 8) {
    const uint64_t bits = splitmix64(state);
    for (size_t b = 0; b < 8 && i + b < h.size(); ++b) {
      uint8_t v = uint8_t(bits >> (8 * b));
      if (fp8_codes && (v & 0x7f) == 0x7f) v = 0x3f;
      h[i + b] = v;
    }
  }
  buf.upload(h.data(), h.size());
}

// Enough copies of an n x k FP8 weight (random codes, scales 2^-7) that 256 MB of them rotate past the L2.
struct Fp8Copies {
  std::vector<DeviceBuffer> codes, scales;
  int count() const { return int(codes.size()); }
};
Fp8Copies make_fp8_copies(int64_t n, int64_t k, uint64_t seed) {
  Fp8Copies w;
  const int copies = int(std::max<int64_t>(2, (256ll << 20) / (n * k) + 1));
  for (int c = 0; c < copies; ++c) {
    w.codes.emplace_back(size_t(n * k));
    fill_random(w.codes.back(), seed + uint64_t(c), true);
    w.scales.emplace_back(size_t(((n + 127) / 128) * ((k + 127) / 128)));
    std::vector<uint8_t> hs(w.scales.back().bytes(), 120);
    w.scales.back().upload(hs.data(), hs.size());
  }
  return w;
}

}  // namespace

double measure_copy_bandwidth() {
  if (!device_available()) fail("plumb synth: no CUDA device");
  const size_t copy_bytes = size_t(2) << 30;
  DeviceBuffer src(copy_bytes), dst(copy_bytes);
  src.fill_bytes(1);
  cudaStream_t stream;
  PLUMB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double copy_s = time_graph(
      [&](int, cudaStream_t st) {
        copy_kernel<<<unsigned(multiprocessor_count() * 8), 512, 0, st>>>(src.as<uint4>(), dst.as<uint4>(), copy_bytes / 16);
      },
      5, stream);
  synchronize();
  cudaStreamDestroy(stream);
  return 2.0 * double(copy_bytes) / copy_s;
}

std::vector<KernelCell> time_kernel_classes(const std::vector<int>& rows_list, int repeats) {
  if (!device_available()) fail("plumb synth: no CUDA device");
  std::vector<KernelCell> table;
  cudaStream_t stream;
  PLUMB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // FP8 dense linears at release widths; several weight copies so the L2 holds none between calls.
  struct Dense {
    const char* name;
    int64_t n, k;
  } dense[] = {{"wq_a 1024x4096", 1024, 4096},   {"wq_b 32768x1024", 32768, 1024}, {"wkv 512x4096", 512, 4096},
               {"wo_b 4096x8192", 4096, 8192},   {"shared w1 2048x4096", 2048, 4096},
               {"shared w2 4096x2048", 4096, 2048}, {"indexer wq_b 8192x1024", 8192, 1024}};
  const int max_rows = *std::max_element(rows_list.begin(), rows_list.end());
  DeviceBuffer x(size_t(max_rows) * 32768 * 2), y(size_t(max_rows) * 32768 * 2);
  {
    std::vector<uint16_t> hx(size_t(max_rows) * 32768);
    std::mt19937 g(5);
    for (auto& v : hx) v = uint16_t(0x3c00 + (g() % 0x0800)) ^ uint16_t((g() & 1) << 15);  // bf16 in +-[2^-7, 2^-6)
    x.upload(hx.data(), hx.size() * 2);
  }
  for (const auto& d : dense) {
    const Fp8Copies wc = make_fp8_copies(d.n, d.k, 100);
    const int copies = wc.count();
    DeviceBuffer ws(fp8_linear_workspace_bytes(d.n, d.k, max_rows));
    fp8_linear_workspace_init(ws.get(), d.n, nullptr);
    const double bytes = double(d.n * d.k) + double(wc.scales[0].bytes());
    for (int rows : rows_list) {
      const double s = time_graph(
          [&](int i, cudaStream_t st) {
            const size_t c = size_t(i % copies);
            const Fp8WeightView w{wc.codes[c].as<uint8_t>(), wc.scales[c].as<uint8_t>(), d.n, d.k};
            fp8_linear(w, x.as<uint16_t>(), rows, y.as<uint16_t>(), ws.get(), 0, st);
          },
          repeats, stream);
      table.push_back({"fp8 rows", d.name, rows, s, bytes});
    }
  }

  // wo_a: the dense linear of FP8 weights in 8 groups, its activations unquantized float32 rows of bf16 values.
  {
    const int64_t groups = 8, n = 8192, k = 4096;
    const Fp8Copies wc = make_fp8_copies(n, k, 300);
    const int copies = wc.count();
    DeviceBuffer xf(size_t(max_rows) * groups * k * 4), yf(size_t(max_rows) * n * 4);
    {
      std::vector<float> hx(size_t(max_rows) * groups * k);
      std::mt19937 g(6);
      for (auto& v : hx) v = float(int(g() % 255) - 127) / 128.0f;  // bf16 values in (-1, 1)
      xf.upload(hx.data(), hx.size() * 4);
    }
    const double bytes = double(n * k) + double(wc.scales[0].bytes());
    for (int rows : rows_list) {
      const double s = time_graph(
          [&](int i, cudaStream_t st) {
            const size_t c = size_t(i % copies);
            const ops::WeightRef w{ops::kFp8Blocks, wc.codes[c].get(), wc.scales[c].as<uint8_t>(), n, k, k / 128};
            ops::dense_linear(w, groups, ops::View{xf.get(), rows, groups * k, groups * k},
                              ops::View{yf.get(), rows, n, n}, true, 1.0f, st);
          },
          repeats, stream);
      table.push_back({"dense fp8 rows", "wo_a 8x1024x4096", rows, s, bytes});
    }
  }

  // Routed experts: 256 release-width experts (3.2 GB, far past the L2), top-6.
  const int64_t experts = 256, hidden = 4096, inter = 2048;
  const size_t c13 = fp4_shuffled_code_bytes(inter, hidden), s13 = fp4_shuffled_scale_bytes(inter, hidden);
  const size_t c2 = fp4_shuffled_code_bytes(hidden, inter), s2 = fp4_shuffled_scale_bytes(hidden, inter);
  DeviceBuffer w13(c13 * 2 * experts), ws13(s13 * 2 * experts), w2(c2 * experts), ws2(s2 * experts);
  fill_random(w13, 7, false);
  fill_random(w2, 8, false);
  {
    std::vector<uint8_t> hs(ws13.bytes(), 122);
    ws13.upload(hs.data(), hs.size());
    hs.assign(ws2.bytes(), 122);
    ws2.upload(hs.data(), hs.size());
  }
  Fp4ExpertsView view;
  void* tables = make_fp4_expert_tables(w13.as<uint8_t>(), ws13.as<uint8_t>(), w2.as<uint8_t>(), ws2.as<uint8_t>(),
                                        experts, hidden, inter, view);
  view.swiglu_limit = 10.0f;
  const double expert_bytes = double(2 * (c13 + s13) + c2 + s2);
  DeviceBuffer ids(size_t(max_rows) * 6 * 4), weights(size_t(max_rows) * 6 * 4);
  DeviceBuffer ews(fp4_experts_workspace_bytes(view, max_rows, 6));
  fp4_experts_workspace_init(ews.get(), view, nullptr);
  std::vector<float> hw(size_t(max_rows) * 6, 0.25f);
  weights.upload(hw.data(), hw.size() * 4);
  for (const char* routing : {"same 6 experts", "routed apart"}) {
    for (int rows : rows_list) {
      std::vector<int32_t> hid(size_t(rows) * 6);
      const bool apart = routing[0] == 'r';
      for (int r = 0; r < rows; ++r)
        for (int k = 0; k < 6; ++k) hid[size_t(r * 6 + k)] = apart ? (r * 6 + k) * 2 % 256 : 17 * k + 3;
      ids.upload(hid.data(), hid.size() * 4);
      std::vector<int32_t> distinct(hid);
      std::sort(distinct.begin(), distinct.end());
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      const double bytes = expert_bytes * double(distinct.size());
      const double s = time_graph(
          [&](int, cudaStream_t st) {
            ExpertsIo io;
            io.x = x.get();
            io.y = y.get();
            fp4_experts(view, io, rows, {ids.as<int32_t>(), weights.as<float>(), 6}, ews.get(), 0, st);
          },
          repeats, stream);
      table.push_back({std::string("experts ") + routing, "top-6 of 256 x4096x2048", rows, s, bytes});
    }
  }
  // What one launch can do at all: a bare read of wq_b's bytes (wo_b's are the same) and of one row's six experts'.
  time_floor_classes({{"wq_b 32768x1024", double(32768 * 1024) + double(32768 / 128 * 1024 / 128)},
                      {"6 of 256 x4096x2048", 6 * expert_bytes}},
                     repeats, stream, table);
  synchronize();
  free_fp4_expert_tables(tables);
  cudaStreamDestroy(stream);

  return table;
}

}  // namespace plumb::cuda
