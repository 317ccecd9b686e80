// The shim's modes, dispatched by shim_main (`k3c shim run|exec|pause <dir>`).
#pragma once

#include <string>

namespace k3c::runtime::shim {

// `k3c shim run <state_dir>`, report pipe on fd 3: supervises the container (shim_run.cpp).
int shim_run(const std::string& state_dir);

// `k3c shim exec <state_dir>`, process spec on fd 3, report pipe on fd 4: runs one process
// in the running container and exits with its status (shim_exec.cpp).
int shim_exec(const std::string& state_dir);

// `k3c shim pause <sandbox_dir>`, report pipe on fd 3: starts the pod's PID-namespace owner
// (pause.cpp, pause_process.h) and exits once it runs.
int shim_pause(const std::string& sandbox_dir);

}  // namespace k3c::runtime::shim
