// Where the block scheduler puts a grid's blocks (session 28 call 3): a kernel held to 4 blocks a multiprocessor by
// its shared memory (as the experts' 8-row pass is by its registers) records each block's %smid; for the first
// `busy` blocks (a launch's blocks with work: 384 of them for 6 experts' items at the release shape) it prints how
// many land on each multiprocessor, least and most, for grids of 384, 528 (4 x 132) and 768 blocks.
//   nvcc -O2 -arch=sm_90a -o block_placement block_placement.cu && ./block_placement
#include <cstdio>
#include <vector>
#include <algorithm>

__global__ void __launch_bounds__(128, 4) record_sm(int* sm_of_block, int spin) {
  extern __shared__ int scratch[];
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (threadIdx.x == 0) sm_of_block[blockIdx.x] = int(sm);
  scratch[threadIdx.x] = int(sm);
  // Blocks with work run a while (so the grid's later blocks see them resident); the others leave at once.
  if (int(blockIdx.x) < spin) {
    long long t0 = clock64();
    while (clock64() - t0 < 200000) {}
  }
  if (scratch[threadIdx.x] < 0) sm_of_block[0] = -1;
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int smem = 50 * 1024;  // 4 blocks fit 227 KB, 5 do not
  cudaFuncSetAttribute(record_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, record_sm, 128, smem);
  printf("multiprocessors %d, blocks a multiprocessor %d\n", sms, per_sm);
  printf("%-6s %-6s %-30s %s\n", "grid", "busy", "busy blocks a multiprocessor", "first 16 blocks' multiprocessors");
  for (int grid : {384, 528, 768}) {
    for (int busy : {384}) {
      int* d = nullptr;
      cudaMalloc(&d, grid * sizeof(int));
      for (int rep = 0; rep < 2; ++rep) {
        record_sm<<<grid, 128, smem>>>(d, busy);
        cudaDeviceSynchronize();
      }
      std::vector<int> sm_of(grid);
      cudaMemcpy(sm_of.data(), d, grid * sizeof(int), cudaMemcpyDeviceToHost);
      std::vector<int> count(sms, 0);
      for (int b = 0; b < busy && b < grid; ++b) ++count[sm_of[b]];
      const int lo = *std::min_element(count.begin(), count.end()), hi = *std::max_element(count.begin(), count.end());
      std::vector<int> hist(hi + 1, 0);
      for (int c : count) ++hist[c];
      char buf[128];
      int n = snprintf(buf, sizeof buf, "min %d max %d (", lo, hi);
      for (int c = 0; c <= hi; ++c) n += snprintf(buf + n, sizeof buf - n, "%s%d:%d", c ? " " : "", c, hist[c]);
      snprintf(buf + n, sizeof buf - n, ")");
      printf("%-6d %-6d %-30s", grid, busy, buf);
      for (int b = 0; b < 16; ++b) printf(" %d", sm_of[b]);
      printf("\n");
      cudaFree(d);
    }
  }
  printf("error: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
