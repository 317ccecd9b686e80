// The owner of a pod's shared PID namespace (shareProcessNamespace), as upstream's pause
// container: the k3c binary re-executed as `k3c shim pause <sandbox_dir>`, PID 1 of a new PID
// namespace, in a session of its own, reaping the orphans its namespace hands it and exiting
// on SIGTERM or SIGINT. Every container of the pod joins that namespace (the sandbox pins it
// as <sandbox_dir>/pid), so the containers see each other's processes and PID 1 is the pause.
//
// Like a shim it is detached from k3c (reparented to init or a subreaper) and survives k3c
// restarts; its pid and start time are in <sandbox_dir>/pause/state.json, so a new k3c
// process finds it again (running_pause). It holds no file of k3c's, is chrooted into an
// empty directory, has no capability and is not dumpable, so that a container seeing it as PID 1
// cannot reach the host through /proc/1/root or /proc/1/fd.
//
// Functions are blocking and thread-safe (state is only in files; callers serialise calls for
// one sandbox). doc/runtime.md, "Shared PID namespace", has the details.
#pragma once

#include <functional>
#include <string>

#include "core/status.h"

namespace k3c::runtime {

// Starts the pause process of `sandbox_dir` (which must exist) with `binary` (the running k3c
// by default) and returns its pid, in the caller's PID namespace, once it runs and has
// recorded itself.
Result<int> start_pause(const std::string& sandbox_dir,
                        const std::string& binary = "/proc/self/exe");

// The pid of the pause process of `sandbox_dir` when it runs (the recorded pid, with the
// recorded start time and the command line naming the directory), else 0.
int running_pause(const std::string& sandbox_dir);

// SIGKILL to the pause process (the kernel then kills every process left in its namespace)
// and waits up to 5 s for it to be gone; removes the record. kOk when none runs.
Status stop_pause(const std::string& sandbox_dir);

// Stops every pause process whose sandbox directory is below `sandboxes_root` and for which
// `owned(dir)` is false (a sandbox removed or stopped while no k3c ran to finish it).
void stop_unowned_pauses(const std::string& sandboxes_root,
                         const std::function<bool(const std::string& dir)>& owned);

}  // namespace k3c::runtime
