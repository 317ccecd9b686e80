// k3c: one executable, every role. main() only hands over to the command line.
#include "cli/cli.h"

int main(int argc, char** argv) { return k3c::cli::run(argc, argv); }
