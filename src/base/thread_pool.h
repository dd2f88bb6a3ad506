// A fixed set of worker threads running independent tasks. Exactness rule (ENGINE.md section 1): callers cut
// work into tasks whose results do not depend on which thread runs them or how many threads exist (fixed-size
// chunks, each writing its own outputs); reductions across tasks happen afterwards in a fixed order.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace plumb {

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs fn(0) .. fn(tasks-1) across the workers and the calling thread; returns when all are done.
  // The first exception thrown by a task is rethrown here after every task has finished.
  void run(size_t tasks, const std::function<void(size_t)>& fn);
  size_t threads() const { return workers_.size() + 1; }

 private:
  void worker_loop();
  void drain(std::unique_lock<std::mutex>& lock);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t job_tasks_ = 0, next_task_ = 0, finished_tasks_ = 0, generation_ = 0;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::mutex run_mutex_;  // one run() at a time
};

// The process-wide pool: PLUMB_THREADS or the hardware's thread count.
ThreadPool& default_thread_pool();

// Runs fn(begin, end) over [0, n) in chunks of `chunk` items (the last may be shorter).
void parallel_for_chunks(size_t n, size_t chunk, const std::function<void(size_t, size_t)>& fn,
                         ThreadPool& pool = default_thread_pool());

}  // namespace plumb
