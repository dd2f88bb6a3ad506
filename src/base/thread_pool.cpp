#include "base/thread_pool.h"

#include <algorithm>
#include <exception>
#include <utility>
#include <string>

#include "base/env_switch.h"

namespace plumb {

ThreadPool::ThreadPool(size_t threads) {
  for (size_t i = 1; i < std::max<size_t>(threads, 1); ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::drain(std::unique_lock<std::mutex>& lock) {
  while (job_ && next_task_ < job_tasks_) {
    const size_t task = next_task_++;
    const auto* fn = job_;
    lock.unlock();
    std::exception_ptr err;
    try {
      (*fn)(task);
    } catch (...) {
      err = std::current_exception();
    }
    lock.lock();
    if (err && !error_) error_ = err;
    if (++finished_tasks_ == job_tasks_) done_.notify_all();
  }
}

void ThreadPool::worker_loop() {
  size_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    drain(lock);
  }
}

void ThreadPool::run(size_t tasks, const std::function<void(size_t)>& fn) {
  if (tasks == 0) return;
  std::lock_guard one_run(run_mutex_);
  if (workers_.empty() || tasks == 1) {
    for (size_t i = 0; i < tasks; ++i) fn(i);
    return;
  }
  std::unique_lock lock(mutex_);
  job_ = &fn;
  job_tasks_ = tasks;
  next_task_ = finished_tasks_ = 0;
  error_ = nullptr;
  ++generation_;
  wake_.notify_all();
  drain(lock);
  done_.wait(lock, [&] { return finished_tasks_ == job_tasks_; });
  job_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

ThreadPool& default_thread_pool() {
  static ThreadPool pool([] {
    if (const int n = env_int("PLUMB_THREADS", 0); n > 0) return size_t(n);
    return size_t(std::max(1u, std::thread::hardware_concurrency()));
  }());
  return pool;
}

void parallel_for_chunks(size_t n, size_t chunk, const std::function<void(size_t, size_t)>& fn,
                         ThreadPool& pool) {
  if (n == 0) return;
  chunk = std::max<size_t>(chunk, 1);
  const size_t tasks = (n + chunk - 1) / chunk;
  pool.run(tasks, [&](size_t t) { fn(t * chunk, std::min(n, (t + 1) * chunk)); });
}

}  // namespace plumb
