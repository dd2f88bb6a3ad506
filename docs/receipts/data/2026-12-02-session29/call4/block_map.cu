// The full block-to-multiprocessor map of a one-wave grid (session 29 call 4), for a first turn dealt to match the
// block scheduler's placement: a kernel held to 4 blocks a multiprocessor by its shared memory (as the experts' 8-row
// pass is by its registers), every block spinning so all 528 are resident at once, records each block's %smid. Five
// launches each of grids 528 and 396 (4 and 3 x 132), then each map, one line of block 0's, 1's, ... multiprocessors.
//   nvcc -O2 -arch=sm_90a -o block_map block_map.cu && ./block_map
#include <cstdio>
#include <vector>

__global__ void __launch_bounds__(128, 4) record_sm(int* sm_of_block) {
  extern __shared__ int scratch[];
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (threadIdx.x == 0) sm_of_block[blockIdx.x] = int(sm);
  scratch[threadIdx.x] = int(sm);
  long long t0 = clock64();
  while (clock64() - t0 < 200000) {}
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
  for (int grid : {4 * sms, 3 * sms}) {
    int* d = nullptr;
    cudaMalloc(&d, grid * sizeof(int));
    std::vector<std::vector<int>> maps;
    for (int rep = 0; rep < 5; ++rep) {
      record_sm<<<grid, 128, smem>>>(d);
      cudaDeviceSynchronize();
      std::vector<int> sm_of(grid);
      cudaMemcpy(sm_of.data(), d, grid * sizeof(int), cudaMemcpyDeviceToHost);
      maps.push_back(sm_of);
    }
    for (int rep = 0; rep < 5; ++rep) {
      int differ = 0;
      for (int b = 0; b < grid; ++b) differ += maps[rep][b] != maps[0][b];
      printf("grid %d launch %d: %d blocks on another multiprocessor than launch 0's\nmap", grid, rep, differ);
      for (int b = 0; b < grid; ++b) printf(" %d", maps[rep][b]);
      printf("\n");
    }
    cudaFree(d);
  }
  printf("error: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
