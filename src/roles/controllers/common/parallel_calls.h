// API calls a controller makes side by side (upstream's slowStartBatch runs each batch of
// creates in goroutines). They run on a pool the controller keeps, whose threads outlive one
// batch: a thread per call (std::async) cost a clone, a stack and an exit for every pod a
// ReplicaSet created.
//
// Threads: any; the caller waits for every call of its batch.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

#include "core/elastic_pool.h"

namespace k3c::controllers {

// call(0) ... call(n - 1) on the pool's threads; their results in that order. A stopped pool
// (the controller stopping) has the calls run on the caller's thread.
template <typename T, typename Call>
std::vector<T> parallel_calls(ElasticPool& pool, size_t n, const Call& call) {
  std::mutex mu;
  std::condition_variable finished;
  size_t left = n;
  std::vector<std::optional<T>> results(n);
  for (size_t i = 0; i < n; ++i) {
    auto run = [&, i] {
      T result = call(i);
      std::lock_guard lock(mu);
      results[i] = std::move(result);
      if (--left == 0) finished.notify_all();
    };
    if (!pool.submit(run)) run();
  }
  {
    std::unique_lock lock(mu);
    finished.wait(lock, [&] { return left == 0; });
  }
  std::vector<T> out;
  out.reserve(n);
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace k3c::controllers
