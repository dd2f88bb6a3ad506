// Programmatic dependent launch (Hopper). The launch queue joins each graph kernel to the one before it with a
// programmatic edge (unless PLUMB_CUDA_PDL=0), so a kernel's blocks may be scheduled while the one before is still
// running: its launch and its weight prefetches overlap the earlier kernel instead of following it. What keeps that
// exact is the rule every kernel follows: kernel_prologue() (or wait_for_earlier_kernels() then
// allow_next_kernel()) runs in every block before the block reads or writes anything an earlier kernel touched,
// and before the block exits, so each kernel finishes after the one before it and later kernels see every earlier
// write. Only constant weights may be read (or prefetched) before the wait. A kernel lets the next one start only
// after its own wait, so at most one kernel ahead holds multiprocessor space or prefetches. Without a programmatic
// edge both instructions do nothing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace plumb::cuda {

// Lets the next kernel's blocks be scheduled once every block of this one has started; they then wait in
// wait_for_earlier_kernels() until this kernel has finished, holding only the multiprocessor space it left free.
__device__ __forceinline__ void allow_next_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Returns once the kernels before this one have finished and their writes are visible to this kernel.
__device__ __forceinline__ void wait_for_earlier_kernels() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void kernel_prologue() {
  wait_for_earlier_kernels();
  allow_next_kernel();
}

// Asks the memory system to bring [p, p + bytes) into L2 (a hint: nothing waits for it, nothing is written).
// p and bytes are rounded inward to 16-byte boundaries, as the bulk prefetch requires.
__device__ __forceinline__ void prefetch_l2(const void* p, size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + 15) & ~uintptr_t(15);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~uintptr_t(15);
  if (end <= begin) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin), "r"(uint32_t(end - begin)) : "memory");
#endif
}

}  // namespace plumb::cuda
