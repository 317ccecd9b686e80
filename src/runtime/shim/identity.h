// Who the container's process runs as: supplementary groups, gid, uid, capabilities (the
// bounding, permitted and effective sets; inheritable and ambient cleared, as containerd
// does), no_new_privs and the seccomp profile. Applied by the process itself right before
// its exec, with raw prctl/capset calls (no libcap).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/shim/container_process.h"

namespace k3c::runtime::shim {

// The highest capability number this kernel knows (/proc/sys/kernel/cap_last_cap).
int last_capability();

// The capability set named by `names` ("CAP_CHOWN" or "CHOWN"; "ALL"), as a bit mask.
// kInvalid for an unknown name.
Result<uint64_t> capability_mask(const std::vector<std::string>& names, int last_cap);

// The capabilities `process` keeps as a bit mask: its list, "ALL" meaning every one this
// process itself has (as containerd resolves it).
Result<uint64_t> capabilities_to_keep(const ProcessSpec& process, int last_cap);

// Switches the calling (single-threaded) process to `process`'s identity; `last_cap` is read
// before pivot_root.
Status apply_identity(const ProcessSpec& process, int last_cap);

// Installs the process's seccomp profile (none for Unconfined). Called before
// apply_identity, while CAP_SYS_ADMIN is still held (a filter needs it or no_new_privs), as
// runc does; the profile allows every call apply_identity and the exec make.
// kNotImplemented where no profile is built (architectures other than x86_64 and arm64).
Status apply_seccomp(const ProcessSpec& process, int last_cap);

}  // namespace k3c::runtime::shim
