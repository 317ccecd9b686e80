// sd_notify: tells the service manager (systemd Type=notify) about the process's state by
// writing one datagram to the AF_UNIX socket named in $NOTIFY_SOCKET. Written by hand so k3c
// needs no libsystemd.
#pragma once

#include <string_view>

#include "core/status.h"

namespace k3c {

// Sends `state` (e.g. "READY=1", "STOPPING=1", "STATUS=...") to `socket_path`, the value of
// $NOTIFY_SOCKET: a filesystem path, or an abstract socket name written with a leading '@'.
// An empty `socket_path` means no service manager is listening: returns ok and sends
// nothing. Never blocks: a full socket queue is an error (kServiceUnavailable). Thread-safe
// (it opens its own socket per call).
Status sd_notify(std::string_view socket_path, std::string_view state);

}  // namespace k3c
