#include "kernels/cuda/synth_timing.cuh"

#include <algorithm>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/launch_queue.h"

namespace plumb::cuda {
namespace {

// Warm-up replays for at least 30 ms, so clocks have ramped whatever ran (or idled) before; then the median of 5.
double median_of_replays(const std::function<double()>& replay) {
  for (double spent = 0; spent < 0.03;) spent += replay();
  std::vector<double> t;
  for (int trial = 0; trial < 5; ++trial) t.push_back(replay());
  std::sort(t.begin(), t.end());
  return t[2];
}

struct EventPair {
  cudaEvent_t a, b;
  EventPair() {
    PLUMB_CUDA_CHECK(cudaEventCreate(&a));
    PLUMB_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~EventPair() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  double seconds() const {  // after b was recorded
    PLUMB_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    PLUMB_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return double(ms) / 1e3;
  }
};

}  // namespace

double time_graph(const std::function<void(int, cudaStream_t)>& call, int repeats, cudaStream_t stream) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  PLUMB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < repeats; ++i) call(i, stream);
  PLUMB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  PLUMB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const EventPair e;
  const double per_call = median_of_replays([&] {
    PLUMB_CUDA_CHECK(cudaEventRecord(e.a, stream));
    PLUMB_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    PLUMB_CUDA_CHECK(cudaEventRecord(e.b, stream));
    return e.seconds();
  }) / repeats;
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return per_call;
}

double time_queue(const std::function<void(int, Stream)>& call, int repeats) {
  LaunchQueue q(true);  // builds its graph the second time the same launches come
  const EventPair e;
  return median_of_replays([&] {
    for (int i = 0; i < repeats; ++i) call(i, &q);  // recorded first, so the device never waits on the host
    PLUMB_CUDA_CHECK(cudaEventRecord(e.a, cudaStreamLegacy));
    q.flush();  // the queue runs on the legacy default stream
    PLUMB_CUDA_CHECK(cudaEventRecord(e.b, cudaStreamLegacy));
    return e.seconds();
  }) / repeats;
}

}  // namespace plumb::cuda
