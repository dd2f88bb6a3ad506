// The one-launch FP8 linear with its K splits summed in a thread block cluster (see fp8_linear.h for the numerics).
#include <cooperative_groups.h>

#include <map>
#include <mutex>
#include <type_traits>

#include "base/env_switch.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/fp8_linear_device.cuh"
#include "kernels/cuda/launch.cuh"

namespace plumb::cuda::fp8_detail {
namespace {

// The one-launch linear with its K splits summed in a thread block cluster of C blocks (splits = 4 C): a block's
// four warps take four consecutive splits of one 16-feature tile, and a cluster all of the tile's splits. Each warp
// quantizes its split's rows into its own shared region, leaves its sums in its block's shared memory, and the
// cluster's first block adds them up in ascending split order from the blocks' shared memory, as sum_splits does
// from global memory, so the bits are the same. There are no global partials, no fence and no arrival atomic: in
// fp8_linear_fused_kernel the stalls on those and on the barrier before them were 45% of its samples (ncu source page,
// wq_a at one row, H200, session 11 call 1).
// NT 8-row tiles a pass: 2 takes 9-16 rows in one pass (one quantization, one pair of cluster barriers, each weight
// fragment widened once for both tiles); each row's MMAs, promotion and split order are an 8-row pass's.
__host__ __device__ constexpr int pass_sums(int nt) { return kPassRows * nt * 16; }
__host__ __device__ constexpr size_t cluster_region_bytes(int64_t per_split, int nt = 1) {
  return (pass_acts_bytes(kPassRows * nt, per_split) + 15) / 16 * 16;
}
__host__ __device__ constexpr size_t cluster_smem_bytes(int64_t per_split, int nt = 1) {
  return kWarpsPerBlock * (cluster_region_bytes(per_split, nt) + pass_sums(nt) * sizeof(float));
}

// One warp quantizes its split's P K blocks of the pass's rows as quantize_pass does, with a K block's loads of the
// pass's rows issued together (a warp has 8 rows to quantize here, where quantize_pass gives each warp 2).
template <int P>
__device__ __forceinline__ void quantize_split(const LinearArgs& a, const LinearInput& in, int64_t base, int64_t kb0,
                                               const PassActs& s) {
  const int lane = int(threadIdx.x) % 32;
#pragma unroll
  for (int j = 0; j < P; ++j) {
    float v[kPassRows][4];
#pragma unroll
    for (int r = 0; r < kPassRows; ++r)
      if (base + r < a.rows) load_activations_4(in.x, in.f32, (base + r) * in.stride + (kb0 + j) * 128 + lane * 4, v[r]);
#pragma unroll
    for (int r = 0; r < kPassRows; ++r) {
      uint32_t packed = 0;
      const float scale = base + r < a.rows ? quantize_block_128(v[r], packed) : 0.0f;
      *reinterpret_cast<uint32_t*>(s.codes + r * s.row_bytes + j * 128 + lane * 4) = packed;
      if (lane == 0) s.scales[r * P + j] = scale;
    }
  }
}

// C blocks a cluster, P K blocks a split, NT 8-row tiles a pass. A warp's weights (P K blocks of its 16 features)
// are read before the PDL wait: constant weights may be (dependent_launch.cuh).
template <int C, int P, int NT = 1>
__device__ __forceinline__ void cluster_linear_block(const LinearArgs& a, const LinearInput& in, int block) {
  constexpr int kSums = pass_sums(NT);
  extern __shared__ __align__(16) uint8_t cluster_smem[];
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane >> 2, t = lane & 3;
  const int rank = int(cluster.block_rank());
  const int split = rank * kWarpsPerBlock + warp;
  const int64_t mtile = block / C, kb0 = int64_t(split) * P;
  const int64_t m0 = mtile * 16 + g, m1 = m0 + 8;
  const int blocks = P - (a.control == control_drop_last && split == a.splits - 1 ? 1 : 0);
  uint4 w[P][2][2];
  float sw[P];
#pragma unroll
  for (int j = 0; j < P; ++j) {
    load_weights(a, m0, m1, kb0 + j, t, w[j]);
    sw[j] = e8m0_value(a.wscale[((mtile * 16) / 128) * ((a.k + 127) / 128) + kb0 + j]);
  }
  uint8_t* mine = cluster_smem + warp * cluster_region_bytes(P, NT);
  const PassActs s{mine, reinterpret_cast<float*>(mine + kPassRows * NT * pass_row_bytes(P)), pass_row_bytes(P), P};
  float* sums = reinterpret_cast<float*>(cluster_smem + kWarpsPerBlock * cluster_region_bytes(P, NT));
  wait_for_earlier_kernels();
  allow_next_kernel();

  for (int64_t base = 0; base < a.rows; base += kPassRows * NT) {
#pragma unroll 1
    for (int nt = 0; nt < NT; ++nt) {  // each 8 rows as an 8-row pass quantizes them (one copy of the code)
      const PassActs tile{s.codes + nt * kPassRows * s.row_bytes, s.scales + nt * kPassRows * P, s.row_bytes, P};
      quantize_split<P>(a, in, base + nt * kPassRows, kb0, tile);
    }
    __syncwarp();
    float acc[NT][4] = {};
#pragma unroll
    for (int j = 0; j < P; ++j) {
      if (j >= blocks) break;
      BlockLoad<NT> cur;
      for (int c = 0; c < 2; ++c) cur.w[c][0] = w[j][c][0], cur.w[c][1] = w[j][c][1];
      load_acts_shared<NT>(a, s, j, g, t, cur);
      mma_block<NT>(cur, sw[j], acc);
    }
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < 4; ++j)  // acc[nt][j]: row 8 nt + 2t + (j & 1), feature g, or g + 8 for j >= 2
        sums[warp * kSums + (8 * nt + 2 * t + (j & 1)) * 16 + g + (j < 2 ? 0 : 8)] = acc[nt][j];
    cluster.sync();
#pragma unroll
    for (int i0 = 0; i0 < kSums; i0 += kWarpsPerBlock * 32) {  // a thread's outputs: i0 + threadIdx.x
      const int i = i0 + int(threadIdx.x);
      const int64_t row = base + i / 16;
      if (rank == 0 && i < kSums && row < a.rows) {
        float sum = 0.0f;
#pragma unroll
        for (int b = 0; b < C; ++b) {  // a block's four sums loaded together, added in split order
          const float* theirs = cluster.map_shared_rank(sums, b) + i0 + threadIdx.x;
          const float v[4] = {theirs[0], theirs[kSums], theirs[2 * kSums], theirs[3 * kSums]};
          sum = b == 0 ? v[0] : sum + v[0];
          sum = sum + v[1];
          sum = sum + v[2];
          sum = sum + v[3];
        }
        store_output(a, row, mtile * 16 + i % 16, sum);
      }
    }
    cluster.sync();  // the first block has read every block's sums (and each warp its activations)
  }
}

// Five blocks a multiprocessor with one K block a split (at most 102 registers): at four, wq_a's 64 clusters of 8
// did not fit one wave (62 clusters did, ncu, session 11 call 2).
constexpr int cluster_blocks_per_sm(int p) { return p == 1 ? 5 : 4; }

template <int C, int P, int NT>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(kWarpsPerBlock * 32, cluster_blocks_per_sm(P))
    fp8_linear_cluster_kernel(LinearArgs a, LinearInput in) {
  cluster_linear_block<C, P, NT>(a, in, int(blockIdx.x));
}

// The shared expert's pair on cluster_linear_block (both linears with 4 C splits, so no cluster straddles them).
template <int C, int P, int NT>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(kWarpsPerBlock * 32, cluster_blocks_per_sm(P))
    fp8_linear_cluster_pair_kernel(LinearArgs a, LinearArgs b, int a_blocks, LinearInput in) {
  if (int(blockIdx.x) < a_blocks) {
    cluster_linear_block<C, P, NT>(a, in, int(blockIdx.x));
  } else {
    cluster_linear_block<C, P, NT>(b, in, int(blockIdx.x) - a_blocks);
  }
}

// PLUMB_FP8_CLUSTER=0 keeps the one-launch linears on the kernels that sum splits through global memory (an A/B
// switch; the bits are the same either way).
bool cluster_enabled() {
  static const bool on = env_switch_on("PLUMB_FP8_CLUSTER");
  return on;
}

// The cluster kernels' blocks a cluster for a linear (4 splits a block, at most 8 blocks: the portable cluster size),
// or 0 where they do not apply.
int cluster_blocks(const LinearArgs& a, int64_t per_split) {
  constexpr size_t kDefaultSharedBytes = 48 << 10;
  const bool fits = a.splits % kWarpsPerBlock == 0 && a.splits <= 8 * kWarpsPerBlock && per_split <= 2 &&
                    cluster_smem_bytes(per_split) <= kDefaultSharedBytes;
  return cluster_enabled() && fits ? a.splits / kWarpsPerBlock : 0;
}

// How many clusters of c blocks of the kernel are resident at once (asked once a kernel): a grid of more runs in
// waves, and a second wave costs more than the cluster saves (ncu, session 11 call 2: wq_a's 64 clusters of 8 where
// 62 fit, the shared expert's pair's 256 clusters of 4 where 124 fit).
int resident_clusters(const void* kernel, int c, size_t shared_bytes) {
  static std::mutex mutex;
  static std::map<const void*, int> known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(kernel); it != known.end()) return it->second;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(c));
  config.blockDim = dim3(kWarpsPerBlock * 32);
  config.dynamicSmemBytes = shared_bytes;
  int clusters = 0;
  PLUMB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  return known[kernel] = clusters;
}

// Calls f(std::integral_constant<int, C>, std::integral_constant<int, P>, std::integral_constant<int, NT>) for a
// cluster size C of 1, 2, 4 or 8, P of 1 or 2 K blocks a split and NT of 1 or 2 tiles a pass (2 from 9 rows on,
// where kPass16 allows it).
template <bool kPass16, typename F>
void with_cluster_shape(int c, int64_t per_split, int64_t rows, F&& f) {
  const auto with_c = [&](auto p, auto nt) {
    switch (c) {
      case 1: f(std::integral_constant<int, 1>{}, p, nt); break;
      case 2: f(std::integral_constant<int, 2>{}, p, nt); break;
      case 4: f(std::integral_constant<int, 4>{}, p, nt); break;
      case 8: f(std::integral_constant<int, 8>{}, p, nt); break;
      default: fail("fp8_linear: no cluster kernel for {} blocks a cluster", c);
    }
  };
  const auto with_p = [&](auto nt) {
    if (per_split == 1) {
      with_c(std::integral_constant<int, 1>{}, nt);
    } else {
      PLUMB_CHECK(per_split == 2);
      with_c(std::integral_constant<int, 2>{}, nt);
    }
  };
  if constexpr (kPass16) {
    if (rows > kPassRows && pass16_enabled()) return with_p(std::integral_constant<int, 2>{});
  }
  with_p(std::integral_constant<int, 1>{});
}

}  // namespace

bool pass16_enabled() {
  static const bool on = env_switch_on("PLUMB_FP8_PASS16");
  return on;
}

bool launch_cluster_linear(const LinearArgs& a, const LinearInput& in, int64_t per_split, bool pass16, Stream stream) {
  const int c = cluster_blocks(a, per_split);
  bool launched = false;
  if (c) with_cluster_shape<true>(c, per_split, pass16 ? a.rows : 0, [&](auto size, auto blocks, auto nt) {
    const auto kernel = fp8_linear_cluster_kernel<size(), blocks(), nt()>;
    const size_t smem = cluster_smem_bytes(per_split, nt());
    if (a.n / 16 > resident_clusters(reinterpret_cast<const void*>(kernel), c, smem)) return;
    launch(stream, "fp8_linear_cluster", kernel, dim3(unsigned(a.n / 16 * c)), dim3(kWarpsPerBlock * 32), smem, a, in);
    launched = true;
  });
  return launched;
}

bool launch_cluster_pair(const LinearArgs& a, const LinearArgs& b, const LinearInput& in, int64_t per_split,
                         Stream stream) {
  const int c = cluster_blocks(a, per_split);
  bool launched = false;
  // 8-row passes only: the pair's 16-row pass spilled (112-360 bytes), and at the shared expert's width the fused
  // pair takes 9-16 rows anyway (resident_clusters)
  if (c) with_cluster_shape<false>(c, per_split, a.rows, [&](auto size, auto blocks, auto nt) {
    const auto kernel = fp8_linear_cluster_pair_kernel<size(), blocks(), nt()>;
    const size_t smem = cluster_smem_bytes(per_split, nt());
    if ((a.n + b.n) / 16 > resident_clusters(reinterpret_cast<const void*>(kernel), c, smem)) return;
    const int a_blocks = int(a.n / 16 * c);
    launch(stream, "fp8_linear_cluster_pair", kernel, dim3(unsigned(a_blocks + b.n / 16 * c)),
           dim3(kWarpsPerBlock * 32), smem, a, b, a_blocks, in);
    launched = true;
  });
  return launched;
}

}  // namespace plumb::cuda::fp8_detail
