// Which scheduler a block's warps run on (session 30 call 2), for the experts' first-turn rank: a kernel held to 4
// blocks a multiprocessor by its shared memory (as the experts' pass is by its registers) records each warp's
// %smid and %warpid (the hardware slot; its scheduler is taken to be slot % 4), then times ALU-bound work done by one
// warp a block: warp 0 of every block (all on one scheduler if slots are dealt 4-aligned) against warp
// (%warpid of warp 0 / 4) % 4 and against the block's arrival on its multiprocessor (an atomic) % 4.
//   nvcc -O2 -arch=sm_90a -o warp_slots warp_slots.cu && ./warp_slots
#include <cstdio>
#include <vector>

constexpr int kSmem = 50 * 1024;  // 4 blocks fit 227 KB, 5 do not

__global__ void __launch_bounds__(128, 4) record_slots(int* sm_of, int* slot_of) {
  extern __shared__ int scratch[];
  unsigned sm, slot;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
  const int warp = blockIdx.x * 4 + threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) sm_of[warp] = int(sm), slot_of[warp] = int(slot);
  scratch[threadIdx.x] = int(sm);
  long long t0 = clock64();
  while (clock64() - t0 < 200000) {}
  if (scratch[threadIdx.x] < 0) sm_of[0] = -1;
}

// mode 0: warp 0 works; 1: warp (%warpid of warp 0 / 4) % 4; 2: warp (arrival on the multiprocessor) % 4.
__global__ void __launch_bounds__(128, 4) one_warp_works(int mode, unsigned* arrivals, float* sink, int iters) {
  extern __shared__ int scratch[];
  __shared__ int chosen;
  if (threadIdx.x == 0) {
    unsigned v = 0;
    if (mode == 1) {
      asm volatile("mov.u32 %0, %%warpid;" : "=r"(v));
      v /= 4;
    } else if (mode == 2) {
      asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
      v = atomicAdd(&arrivals[v], 1u);
    }
    chosen = int(v % 4);
  }
  __syncthreads();
  scratch[threadIdx.x] = 0;
  if (int(threadIdx.x / 32) != chosen) return;
  unsigned a[8];
  for (int j = 0; j < 8; ++j) a[j] = threadIdx.x * (j + 3);
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = (a[j] ^ (a[j] >> 3)) + 0x9e3779b9u;  // ALU: eight independent chains
  unsigned s = 0;
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 0x12345678u) sink[0] = float(s);
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaFuncSetAttribute(record_slots, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(one_warp_works, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  const int grid = 4 * sms;
  int *sm_of, *slot_of;
  cudaMalloc(&sm_of, grid * 4 * sizeof(int));
  cudaMalloc(&slot_of, grid * 4 * sizeof(int));
  for (int rep = 0; rep < 2; ++rep) {
    record_slots<<<grid, 128, kSmem>>>(sm_of, slot_of);
    cudaDeviceSynchronize();
    std::vector<int> sm(grid * 4), slot(grid * 4);
    cudaMemcpy(sm.data(), sm_of, sm.size() * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(slot.data(), slot_of, slot.size() * sizeof(int), cudaMemcpyDeviceToHost);
    int aligned = 0, consecutive = 0;
    for (int b = 0; b < grid; ++b) {
      aligned += slot[b * 4] % 4 == 0;
      bool c = true;
      for (int w = 1; w < 4; ++w) c = c && slot[b * 4 + w] == slot[b * 4] + w;
      consecutive += c;
    }
    printf("launch %d: blocks whose warp 0 slot %% 4 == 0: %d of %d; warps in consecutive slots: %d\n", rep, aligned,
           grid, consecutive);
    printf("slots of blocks 0-11 (sm: w0 w1 w2 w3):");
    for (int b = 0; b < 12; ++b) printf(" [%d: %d %d %d %d]", sm[b * 4], slot[b * 4], slot[b * 4 + 1], slot[b * 4 + 2], slot[b * 4 + 3]);
    printf("\n");
    std::vector<int> ranks_seen(64, 0);
    for (int b = 0; b < grid; ++b) ++ranks_seen[slot[b * 4] / 4 % 16];
    printf("warp 0 slot / 4 over blocks:");
    for (int r = 0; r < 16; ++r) if (ranks_seen[r]) printf(" %d:%d", r, ranks_seen[r]);
    printf("\n");
  }
  unsigned* arrivals;
  float* sink;
  cudaMalloc(&arrivals, 1024 * sizeof(unsigned));
  cudaMalloc(&sink, sizeof(float));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const char* names[] = {"warp 0 of every block", "warp %warpid/4 % 4", "warp arrival % 4"};
  for (int rep = 0; rep < 3; ++rep) {
    for (int mode = 0; mode < 3; ++mode) {
      cudaMemset(arrivals, 0, 1024 * sizeof(unsigned));
      one_warp_works<<<grid, 128, kSmem>>>(mode, arrivals, sink, 20000);  // warm
      cudaMemset(arrivals, 0, 1024 * sizeof(unsigned));
      cudaEventRecord(e0);
      one_warp_works<<<grid, 128, kSmem>>>(mode, arrivals, sink, 20000);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      printf("rep %d  %-24s %8.1f us\n", rep, names[mode], ms * 1000);
    }
  }
  printf("error: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
