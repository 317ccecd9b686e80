// Placeholder until the command line lands.
#include "cli/cli.h"

#include <cstdio>

namespace k3c::cli {

int run(int, char**) {
  std::fprintf(stderr, "k3c: command line not implemented yet\n");
  return 2;
}

}  // namespace k3c::cli
