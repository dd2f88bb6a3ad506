#include "kernels/cuda/launch_queue.h"

#ifdef PLUMB_HAVE_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/env_switch.h"
#include "base/error.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device.h"
#include "kernels/cuda/kernel_node.h"
#include "kernels/cuda/kernel_timer.h"
#include "kernels/cuda/launch_tape.h"

namespace plumb::cuda {
namespace {

constexpr size_t kStagingChunk = 64 << 10;   // bytes per staging chunk (larger stagings get a chunk of their own)
constexpr size_t kMinGraphLaunches = 16;     // smaller flushes (one op under the op timer) launch directly
constexpr size_t kMaxGraphs = 32;            // cached graphs, least recently used dropped first

// Pinned host bytes and their device twin. Device addresses stay put across flushes, so a replayed graph's
// arguments point at this flush's bytes; the host refills a chunk only once the last flush's copy from it ran.
class StagingChunk {
 public:
  explicit StagingChunk(size_t capacity) : capacity_(capacity), device_(capacity) {
    PLUMB_CUDA_CHECK(cudaHostAlloc(&host_, capacity, cudaHostAllocDefault));
    PLUMB_CUDA_CHECK(cudaEventCreateWithFlags(&sent_, cudaEventDisableTiming));
  }
  ~StagingChunk() {
    cudaEventDestroy(sent_);
    cudaFreeHost(host_);
  }
  StagingChunk(const StagingChunk&) = delete;
  StagingChunk& operator=(const StagingChunk&) = delete;

  bool fits(size_t n) const { return used_ + n <= capacity_; }
  void* put(const void* bytes, size_t n) {
    if (used_ == 0) PLUMB_CUDA_CHECK(cudaEventSynchronize(sent_));
    std::memcpy(static_cast<char*>(host_) + used_, bytes, n);
    void* at = static_cast<char*>(device_.get()) + used_;
    used_ += (n + 15) / 16 * 16;
    return at;
  }
  void send() {
    if (used_ == 0) return;
    PLUMB_CUDA_CHECK(cudaMemcpyAsync(device_.get(), host_, used_, cudaMemcpyHostToDevice, cudaStreamLegacy));
    PLUMB_CUDA_CHECK(cudaEventRecord(sent_, cudaStreamLegacy));
    used_ = 0;
  }

 private:
  size_t capacity_, used_ = 0;
  void* host_ = nullptr;
  DeviceBuffer device_;
  cudaEvent_t sent_ = nullptr;
};

struct CachedGraph {
  LaunchTape tape;  // the arguments its nodes hold now
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::vector<cudaGraphNode_t> nodes;
  uint64_t hash = 0, last_used = 0;

  ~CachedGraph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

}  // namespace

struct LaunchQueue::Impl {
  LaunchTape tape;
  std::vector<std::unique_ptr<StagingChunk>> chunks;
  size_t chunk = 0;  // the chunk stage() fills now
  std::vector<std::unique_ptr<CachedGraph>> graphs;
  std::unordered_map<uint64_t, int> seen;  // flush shapes seen without a graph
  uint64_t clock = 0;
  bool dependent_launch = true;  // graphs join their kernels by programmatic edges (PLUMB_CUDA_PDL=0: plain ones)

  void* stage(const void* bytes, size_t n) {
    while (chunk < chunks.size() && !chunks[chunk]->fits(n)) ++chunk;
    if (chunk == chunks.size()) chunks.push_back(std::make_unique<StagingChunk>(std::max(kStagingChunk, n)));
    return chunks[chunk]->put(bytes, n);
  }

  void send_staging() {
    for (auto& c : chunks) c->send();
    chunk = 0;
  }

  void launch_directly() {
    for (size_t i = 0; i < tape.size(); ++i) {
      const LaunchTape::Entry& e = tape.entry(i);
      const cudaError_t err = cudaLaunchKernel(e.func, dim3(e.grid.x, e.grid.y, e.grid.z),
                                               dim3(e.block.x, e.block.y, e.block.z), const_cast<void**>(tape.args(i)),
                                               e.shared_bytes, cudaStreamLegacy);
      if (err != cudaSuccess) cuda_failure(err, e.name, __FILE__, __LINE__);
    }
  }

  CachedGraph* find(uint64_t hash) {
    for (auto& g : graphs)
      if (g->hash == hash && g->tape.same_shape(tape)) return g.get();
    return nullptr;
  }

  // Brings the graph's nodes to this tape's arguments, then launches it; returns the nodes it updated.
  int64_t replay(CachedGraph& g) {
    int64_t updated = 0;
    for (size_t i = 0; i < tape.size(); ++i) {
      if (g.tape.same_args(i, tape)) continue;
      const cudaKernelNodeParams p = kernel_node_params(tape.entry(i), tape.args(i));
      const cudaError_t err = cudaGraphExecKernelNodeSetParams(g.exec, g.nodes[i], &p);
      if (err != cudaSuccess) cuda_failure(err, tape.entry(i).name, __FILE__, __LINE__);
      g.tape.copy_args(i, tape);
      ++updated;
    }
    g.last_used = ++clock;
    PLUMB_CUDA_CHECK(cudaGraphLaunch(g.exec, cudaStreamLegacy));
    return updated;
  }

  void build(uint64_t hash) {
    if (graphs.size() == kMaxGraphs) {
      auto oldest = std::min_element(graphs.begin(), graphs.end(),
                                     [](const auto& a, const auto& b) { return a->last_used < b->last_used; });
      graphs.erase(oldest);
    }
    auto g = std::make_unique<CachedGraph>();
    g->hash = hash;
    g->tape = tape;
    PLUMB_CUDA_CHECK(cudaGraphCreate(&g->graph, 0));
    g->nodes.resize(tape.size());
    // Each kernel after the one before on its lane (without lanes: a chain, as on a stream). A programmatic edge
    // lets a kernel start while that one finishes; the kernel waits for it in wait_for_earlier_kernels()
    // (dependent_launch.cuh). A lane's fork and a join are plain edges: the kernel starts once those have finished.
    cudaGraphEdgeData lane_edge{}, plain{};
    if (dependent_launch) {
      lane_edge.from_port = cudaGraphKernelNodePortProgrammatic;
      lane_edge.type = cudaGraphDependencyTypeProgrammatic;
    }
    for (size_t i = 0; i < tape.size(); ++i) {
      const LaunchTape::Entry& e = tape.entry(i);
      const cudaKernelNodeParams p = kernel_node_params(e, tape.args(i));
      cudaError_t err = cudaGraphAddKernelNode(&g->nodes[i], g->graph, nullptr, 0, &p);
      if (err == cudaSuccess && e.after >= 0)
        err = cudaGraphAddDependencies(g->graph, &g->nodes[size_t(e.after)], &g->nodes[i], &lane_edge, 1);
      for (int32_t from : e.also)
        if (err == cudaSuccess && from >= 0)
          err = cudaGraphAddDependencies(g->graph, &g->nodes[size_t(from)], &g->nodes[i], &plain, 1);
      if (err != cudaSuccess) cuda_failure(err, e.name, __FILE__, __LINE__);
    }
    PLUMB_CUDA_CHECK(cudaGraphInstantiate(&g->exec, g->graph, 0));
    g->last_used = ++clock;
    PLUMB_CUDA_CHECK(cudaGraphLaunch(g->exec, cudaStreamLegacy));
    graphs.push_back(std::move(g));
  }
};

LaunchQueue::LaunchQueue(bool graphs) : impl_(std::make_unique<Impl>()), graphs_(graphs) {
  // 1: every kernel timed; 2: also each lane shape's longest chain listed launch by launch.
  const char* times = std::getenv("PLUMB_CUDA_KERNEL_TIMES");
  if (times && (std::string_view(times) == "1" || std::string_view(times) == "2")) {
    timer_ = std::make_unique<KernelTimer>(std::string_view(times) == "2");
    graphs_ = false;
  }
  impl_->dependent_launch = env_switch_on("PLUMB_CUDA_PDL");
}

bool LaunchQueue::dependent_launch() const { return impl_->dependent_launch; }

std::string LaunchQueue::kernel_times() const { return timer_ ? timer_->table() : std::string(); }

LaunchQueue::~LaunchQueue() = default;  // the owner flushes first: unflushed launches are dropped

void LaunchQueue::record(const KernelCall& call) {
  impl_->tape.record(call);
  ++stats_.launches;
}

void* LaunchQueue::stage(const void* bytes, size_t n) { return n ? impl_->stage(bytes, n) : nullptr; }

void LaunchQueue::begin_lane(int lane) { impl_->tape.begin_lane(lane); }
void LaunchQueue::end_lane() { impl_->tape.end_lane(); }
void LaunchQueue::join_lanes() { impl_->tape.join_lanes(); }
int LaunchQueue::lane() const { return impl_->tape.lane(); }

void LaunchQueue::flush() {
  Impl& q = *impl_;
  q.send_staging();
  if (q.tape.empty()) return;
  ++stats_.flushes;
  if (timer_) {
    timer_->run(q.tape);
  } else if (graphs_ && q.tape.size() >= kMinGraphLaunches) {
    const uint64_t hash = q.tape.shape_hash();
    if (CachedGraph* g = q.find(hash)) {
      stats_.nodes_updated += q.replay(*g);
      ++stats_.graph_replays;
    } else if (++q.seen[hash] >= 2) {  // a shape seen twice is likely to come again (a decode round)
      if (q.seen.size() > 4096) q.seen.clear();
      q.seen.erase(hash);
      q.build(hash);
      ++stats_.graphs_built;
    } else {
      q.launch_directly();
    }
  } else {
    q.launch_directly();
  }
  q.tape.clear();
}

void submit(Stream s, const KernelCall& call) {
  if (s.queue()) return s.queue()->record(call);
  const cudaError_t err = cudaLaunchKernel(call.func, dim3(call.grid.x, call.grid.y, call.grid.z),
                                           dim3(call.block.x, call.block.y, call.block.z),
                                           const_cast<void**>(call.args), call.shared_bytes,
                                           reinterpret_cast<cudaStream_t>(s.stream()));
  if (err != cudaSuccess) cuda_failure(err, call.name, __FILE__, __LINE__);
}

}  // namespace plumb::cuda
#endif
