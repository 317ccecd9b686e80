// Scratch directories, threads and values for the store benchmark (see bench_env.h).
#include "bench_env.h"

#include <stdlib.h>

#include <filesystem>
#include <latch>
#include <stdexcept>
#include <thread>
#include <vector>

namespace k3c::bench {

ScratchDir::ScratchDir(const BenchEnv& env, const std::string& name) {
  std::string tmpl = env.root + "/" + name + "-XXXXXX";
  // The run's root was created by this program; failing here means the disk is gone.
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a directory in " + env.root);
  dir_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);  // best effort; the run's root is removed at exit too
}

int64_t file_bytes(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

int64_t db_bytes(const std::string& db_path) {
  return file_bytes(db_path) + file_bytes(db_path + "-wal");
}

std::string make_value(size_t size, uint64_t seed) {
  std::string v(size, ' ');
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (char& c : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>('a' + x % 26);
  }
  return v;
}

double run_threads(int threads, std::chrono::nanoseconds duration,
                   const std::function<void(int, std::chrono::steady_clock::time_point)>& body) {
  std::latch ready(threads + 1);
  std::chrono::steady_clock::time_point start, deadline;
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      ready.arrive_and_wait();
      body(i, deadline);
    });
  }
  start = std::chrono::steady_clock::now();
  deadline = start + duration;
  ready.arrive_and_wait();  // publishes start/deadline to the workers
  for (auto& t : pool) t.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace k3c::bench
