// A pod sandbox's namespaces without an infra ("pause") process: a short-lived thread creates
// the network, IPC and UTS namespaces, sets the pod's hostname and brings loopback up, and
// each namespace is bind-mounted onto a file so it lives on after the thread exits (the
// calling thread stays in its own namespaces). Containers
// then join the files with setns(2). This saves one process per pod; the mounts live in the
// mount namespace of the k3c process (and die with it, or with a reboot). A shared PID
// namespace needs a process (its PID 1, the pause of shim/pause_process.h); it is pinned too,
// so that containers join that very namespace.
#pragma once

#include <string>

#include "core/status.h"

namespace k3c::runtime {

struct NamespaceKinds {
  bool net = true;
  bool ipc = true;
  bool uts = true;
};

// The pinned files, "" for a kind not asked for (the container stays in the host's).
struct PinnedNamespaces {
  std::string net;
  std::string ipc;
  std::string uts;
  std::string pid;  // only with a pause process (shareProcessNamespace): pin_pid_namespace
};

// Creates the namespaces and pins them as `dir`/net, `dir`/ipc, `dir`/uts (`dir` must exist).
// On error nothing stays pinned.
Result<PinnedNamespaces> pin_namespaces(const std::string& dir, const NamespaceKinds& kinds,
                                        const std::string& hostname);

// Pins the PID namespace of process `pid` (the pod's pause) as `dir`/pid. The pin keeps the
// namespace object, never a recycled one: once its PID 1 is gone, joining it fails.
Result<std::string> pin_pid_namespace(const std::string& dir, int pid);

// The pinned files under `dir` that are still namespaces (after a reboot they are plain
// empty files).
PinnedNamespaces pinned_namespaces(const std::string& dir);

// Unmounts and removes the pinned files; kOk when they are already gone.
Status unpin_namespaces(const std::string& dir);

}  // namespace k3c::runtime
