// Programmatic dependent launch (Hopper). The launch queue joins each graph kernel to the one before it with a
// programmatic edge (unless PLUMB_CUDA_PDL=0), so a kernel's blocks may be scheduled while the one before is still
// running: its launch and setup overlap the earlier kernel instead of following it. What keeps that
// exact is the rule every kernel follows: kernel_prologue() (or wait_for_earlier_kernels() then
// allow_next_kernel()) runs in every block before the block reads or writes anything an earlier kernel touched,
// and before the block exits, so each kernel finishes after the one before it and later kernels see every earlier
// write. Only constant weights, and host bytes the launch queue staged (sent before the flush's first kernel, in
// stream order), may be read before the wait. A kernel lets the next one start only after its own wait, so at most
// one kernel ahead holds multiprocessor space. Without a programmatic edge both instructions do nothing.
#pragma once

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

}  // namespace plumb::cuda
