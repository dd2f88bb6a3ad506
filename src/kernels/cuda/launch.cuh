// launch(s, kernel, grid, block, shared_bytes, args...): the one way the .cu launchers start a kernel, so that a
// backend can record launches into a LaunchQueue (launch.h) instead of starting them one by one.
#pragma once

#include <cuda_runtime.h>

#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/launch.h"

namespace plumb::cuda {

namespace detail {
template <typename Tuple, size_t... I>
void submit_tuple(Stream s, const void* func, dim3 grid, dim3 block, size_t shared_bytes, const char* name,
                  Tuple& values, std::index_sequence<I...>) {
  void* args[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(values))...};
  const uint32_t sizes[sizeof...(I) + 1] = {uint32_t(sizeof(std::get<I>(values)))...};
  submit(s, KernelCall{func, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes, args, sizes,
                       int(sizeof...(I)), name});
}
}  // namespace detail

// Each argument is converted to its parameter's type first, as a <<<>>> launch would.
template <typename... P, typename... A>
void launch(Stream s, const char* name, void (*kernel)(P...), dim3 grid, dim3 block, size_t shared_bytes,
            A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "launch: argument count differs from the kernel's");
  std::tuple<std::decay_t<P>...> values(static_cast<std::decay_t<P>>(std::forward<A>(args))...);
  detail::submit_tuple(s, reinterpret_cast<const void*>(kernel), grid, block, shared_bytes, name, values,
                       std::index_sequence_for<P...>{});
}

// Lets Kernel take up to Bytes of dynamic shared memory (more than the default 48 KB), set the first time only.
template <auto Kernel, size_t Bytes>
void allow_shared_bytes() {
  static const bool allowed = [] {
    PLUMB_CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Bytes)));
    return true;
  }();
  (void)allowed;
}

}  // namespace plumb::cuda
