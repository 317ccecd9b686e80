// The RuntimeDefault seccomp profile as a classic BPF program, built without libseccomp: the
// syscalls containerd's default profile allows (seccomp_syscalls.inc), more of them for some
// kept capabilities, personality() only with the usual values, clone() without namespace
// flags unless CAP_SYS_ADMIN is kept, clone3() answering ENOSYS then (so libc falls back to
// clone); everything else, and any foreign architecture or ABI, fails with EPERM.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <vector>

#include "core/status.h"

namespace k3c::runtime::shim {

// The filter for a process that keeps the capabilities in `capabilities` (a bit mask).
// kNotImplemented on an architecture without a profile here.
Result<std::vector<sock_filter>> runtime_default_filter(uint64_t capabilities);

// Installs `filter` on the calling thread (inherited by everything it execs and forks).
Status install_seccomp_filter(const std::vector<sock_filter>& filter);

}  // namespace k3c::runtime::shim
