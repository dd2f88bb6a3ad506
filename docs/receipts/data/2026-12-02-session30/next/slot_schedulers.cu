// Which hardware warp slots share a scheduler (session 30 call 3). Call 2's warp_slots found a 4-warp block's warps
// in slots 4r .. 4r + 3 (r its arrival on the multiprocessor), and ALU-bound work by warp 0 of each of four blocks
// ran in 367 us where warp r of the block in slots 4r.. took 691: slots 0, 4, 8, 12 are on four schedulers, slots 0,
// 5, 10, 15 are not. Here one 16-warp block a multiprocessor (its shared memory allows one), warp w in slot w
// (checked), times the same work done by warp 0 alone, then by warps 0 and j for each j: about twice the time when j
// shares slot 0's scheduler.
//   nvcc -O2 -arch=sm_90a -o slot_schedulers slot_schedulers.cu && ./slot_schedulers
#include <cstdio>
#include <vector>

constexpr int kSmem = 120 * 1024;  // one block a multiprocessor

__global__ void __launch_bounds__(512, 1) two_warps_work(int j, int* slot_of, float* sink, int iters) {
  extern __shared__ int scratch[];
  unsigned slot;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
  const int w = int(threadIdx.x / 32);
  if (threadIdx.x % 32 == 0) slot_of[blockIdx.x * 16 + w] = int(slot);
  scratch[threadIdx.x] = 0;
  if (w != 0 && w != j) return;
  unsigned a[8];
  for (int k = 0; k < 8; ++k) a[k] = threadIdx.x * (k + 3);
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = (a[k] ^ (a[k] >> 3)) + 0x9e3779b9u;  // ALU: eight independent chains
  unsigned s = 0;
  for (int k = 0; k < 8; ++k) s += a[k];
  if (s == 0x12345678u) sink[0] = float(s);
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaFuncSetAttribute(two_warps_work, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  int* slot_of;
  float* sink;
  cudaMalloc(&slot_of, sms * 16 * sizeof(int));
  cudaMalloc(&sink, sizeof(float));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<int> slot(sms * 16);
  for (int rep = 0; rep < 2; ++rep) {
    printf("rep %d, warps 0 and j busy (j = 0: warp 0 alone), us:", rep);
    for (int j = 0; j < 16; ++j) {
      two_warps_work<<<sms, 512, kSmem>>>(j, slot_of, sink, 20000);  // warm
      cudaEventRecord(e0);
      two_warps_work<<<sms, 512, kSmem>>>(j, slot_of, sink, 20000);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      printf(" %d:%.0f", j, ms * 1000);
    }
    printf("\n");
  }
  cudaMemcpy(slot.data(), slot_of, slot.size() * sizeof(int), cudaMemcpyDeviceToHost);
  int in_order = 0;
  for (int b = 0; b < sms; ++b) {
    bool ok = true;
    for (int w = 0; w < 16; ++w) ok = ok && slot[b * 16 + w] == w;
    in_order += ok;
  }
  printf("blocks whose warp w sits in slot w: %d of %d\n", in_order, sms);
  printf("error: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
