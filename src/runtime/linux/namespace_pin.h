// A pod sandbox's namespaces without an infra ("pause") process: a short-lived child creates
// the network, IPC and UTS namespaces, sets the pod's hostname and brings loopback up, and
// each namespace is bind-mounted onto a file so it lives on after the child exits. Containers
// then join the files with setns(2). This saves one process per pod; the mounts live in the
// mount namespace of the k3c process (and die with it, or with a reboot).
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
};

// Creates the namespaces and pins them as `dir`/net, `dir`/ipc, `dir`/uts (`dir` must exist).
// On error nothing stays pinned.
Result<PinnedNamespaces> pin_namespaces(const std::string& dir, const NamespaceKinds& kinds,
                                        const std::string& hostname);

// The pinned files under `dir` that are still namespaces (after a reboot they are plain
// empty files).
PinnedNamespaces pinned_namespaces(const std::string& dir);

// Unmounts and removes the pinned files; kOk when they are already gone.
Status unpin_namespaces(const std::string& dir);

}  // namespace k3c::runtime
