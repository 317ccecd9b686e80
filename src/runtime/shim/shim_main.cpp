// `k3c shim ...`: the entry of the shim modes, called from main() before the CLI is built so
// that the shim starts fast and small.
#include <cstdio>
#include <cstring>

#include "runtime/shim/container_process.h"
#include "runtime/shim/shim_modes.h"

namespace k3c::runtime {

int shim_main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[2], "run") == 0) return shim::shim_run(argv[3]);
  if (argc == 4 && std::strcmp(argv[2], "exec") == 0) return shim::shim_exec(argv[3]);
  if (argc == 4 && std::strcmp(argv[2], "pause") == 0) return shim::shim_pause(argv[3]);
  std::fprintf(stderr,
               "k3c shim is started by k3c itself (k3c shim run|exec|pause <dir>), not by hand\n");
  return 2;
}

}  // namespace k3c::runtime
