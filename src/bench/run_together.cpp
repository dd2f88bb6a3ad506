#include "bench/run_together.h"

#include <latch>
#include <thread>

namespace plumb::bench {

std::vector<StreamedReply> run_together(const ServerUrl& url, const std::vector<StreamCall>& calls,
                                        const ClientOptions& options) {
  std::vector<StreamedReply> replies(calls.size());
  std::latch start(std::ptrdiff_t(calls.size()));
  std::vector<std::thread> threads;
  threads.reserve(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      replies[i] = stream_request(url, calls[i].path, calls[i].body, options);
    });
  }
  for (auto& t : threads) t.join();
  return replies;
}

}  // namespace plumb::bench
