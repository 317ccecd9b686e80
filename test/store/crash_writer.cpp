// The child of the crash test: writes to a datastore with many concurrent writers and
// appends a line to an acknowledgement log for every write the store acknowledged, until it
// is killed. Usage: k3c_store_crash_writer DB_PATH ACK_LOG ROUND WRITERS
//
// Log lines (written with one write(2) each, so a SIGKILL leaves at most a partial last
// line, and the kernel keeps what was written):
//   C <key> <revision> <value>    a create of <key> was acknowledged at <revision>
//   U <key> <revision> <value>    a compare-and-swap update of <key> was acknowledged
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"

using namespace std::chrono_literals;

namespace {

void log_line(int fd, const std::string& line) {
  // One write per line: O_APPEND makes concurrent lines land whole and in order of writing.
  if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(3);
}

void writer(k3c::store::Store& store, int fd, const std::string& round, int id) {
  const std::string counter = "/crash/counter/" + std::to_string(id);
  for (long n = 0;; ++n) {
    std::string key = "/crash/" + round + "/" + std::to_string(id) + "/" + std::to_string(n);
    std::string value = key + "#" + std::string(n % 200, 'x');
    auto r = store.create(key, value);
    if (!r.is_ok()) {
      fprintf(stderr, "create %s: %s\n", key.c_str(), r.status().to_string().c_str());
      _exit(4);
    }
    log_line(fd, "C " + key + " " + std::to_string(r->mod_revision) + " " + value + "\n");
    // Every few writes, bump this writer's counter with compare-and-swap.
    if (n % 4 == 0) {
      auto cur = store.get(counter);
      long next = cur.is_ok() ? std::stol(cur->value) + 1 : 0;
      auto u = cur.is_ok() ? store.update(counter, std::to_string(next), cur->mod_revision)
                           : store.create(counter, "0");
      if (u.is_ok()) {
        log_line(fd, "U " + counter + " " + std::to_string(u->mod_revision) + " " +
                         std::to_string(next) + "\n");
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s DB_PATH ACK_LOG ROUND WRITERS\n", argv[0]);
    return 2;
  }
  k3c::store::Options options;
  options.path = argv[1];
  // Compact often and keep little history, so that kills also land inside compactions.
  options.retain_revisions = 50;
  options.retain_time = 0s;
  options.maintenance_interval = 20ms;
  auto store = k3c::store::open(options);
  if (!store.is_ok()) {
    fprintf(stderr, "open: %s\n", store.status().to_string().c_str());
    return 1;
  }
  int fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return 1;
  std::vector<std::thread> threads;
  int writers = std::stoi(argv[4]);
  for (int i = 0; i < writers; ++i) {
    threads.emplace_back([&, i] { writer(**store, fd, argv[3], i); });
  }
  for (auto& t : threads) t.join();  // never returns: the test kills this process
  return 0;
}
