// The terminal of a process in a container, from the container's own devpts instance (runc's
// console socket): the process, in the container's mount namespace, opens /dev/ptmx there and
// hands the master over a unix socket to the side that serves it (the shim for the
// container's main process, an exec session for kubectl exec -t), so `tty` inside names
// /dev/pts/N. doc/runtime.md ("The container's process", "Interactive exec sessions").
#pragma once

#include "core/status.h"

namespace k3c::runtime::shim {

// In the process, its mount namespace the container's: opens /dev/ptmx, sends the master
// over `socket_fd` (SCM_RIGHTS) and returns the slave (O_RDWR, not yet the controlling
// terminal; the caller owns it).
Result<int> open_container_terminal(int socket_fd);

// In the serving side, once the process has exec'd (so what it sent is queued): the master
// (CLOEXEC, owned by the caller). kInternal when nothing was sent. Never blocks.
Result<int> receive_container_terminal(int socket_fd);

// After pivot_root: the slave bound on /dev/console, as runc does for a terminal.
Status bind_console(int slave);

}  // namespace k3c::runtime::shim
