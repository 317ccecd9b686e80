// k3c: one executable, every role. main() only hands over to the command line.
#include <malloc.h>
#include <signal.h>

#include <cstring>

#include "cli/cli.h"
#include "core/crash_report.h"
#include "runtime/shim/container_process.h"

int main(int argc, char** argv) {
  // The container shim (`k3c shim ...`, started by k3c itself) skips everything below: it
  // must start fast and stay small.
  if (argc > 1 && std::strcmp(argv[1], "shim") == 0) return k3c::runtime::shim_main(argc, argv);
  // glibc gives each thread that allocates its own arena (up to 8 per core) and keeps what
  // is freed there. The API server's worker threads build and free JSON trees for every
  // write, so arenas multiplied the resident memory: 184 MB instead of 97 MB holding 11,000
  // pods (bench/k3c_apiserver_bench). Two arenas keep allocation fast on these machines.
  mallopt(M_ARENA_MAX, 2);
  // Blocks of 4 MiB and more (a LIST reply of 10,000 pods is 23 MB) get their own mapping,
  // returned to the system when freed. glibc's default raises this threshold to the size of
  // the largest block freed so far, after which such replies come from the heap and stay
  // resident once freed: 177-200 MB instead of 153-156 MB holding 11,000 pods after LISTs of
  // 10,000 (bench/k3c_apiserver_bench --only lists), LIST times unchanged.
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  // A write to a pipe whose reader is gone (an exec'd process's stdin after it exited) is an
  // EPIPE error for the writer to handle, not a signal that ends k3c. Spawned processes get
  // the default disposition back (spawn_shim).
  signal(SIGPIPE, SIG_IGN);
  k3c::crash_report::install();
  return k3c::cli::run(argc, argv);
}
