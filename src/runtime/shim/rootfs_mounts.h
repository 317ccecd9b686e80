// The container's root filesystem, set up by the container process itself between its fork
// and its exec, in its new mount namespace: the overlay root, /proc, /sys, a minimal /dev,
// the bind mounts, /sys/fs/cgroup (once the process is in its cgroups), pivot_root, then
// the masked and read-only paths.
//
// Paths inside the container are resolved with openat2(RESOLVE_IN_ROOT): a symlink in the
// image (`/etc -> /host/etc`) cannot send a mount outside the container's root.
#pragma once

#include <string>

#include "core/status.h"
#include "runtime/shim/cgroup_view.h"
#include "runtime/shim/container_process.h"

namespace k3c::runtime::shim {

// Before pivot_root: makes the mount tree private, mounts the overlay at <state_dir>/rootfs
// and everything below it. Errors are kInvalid with a message naming the mount.
Status prepare_rootfs(const LaunchSpec& spec);

// After the process was placed in its cgroups, before pivot_root: mounts the view of
// /sys/fs/cgroup that `view` describes (cgroup_view.h) in the container's /sys. The cgroup
// namespace, when the view asks for one, must be unshared before.
Status mount_cgroup_view(const LaunchSpec& spec, const CgroupView& view);

// pivot_root into <state_dir>/rootfs and detaches the old root.
Status enter_rootfs(const LaunchSpec& spec);

// After pivot_root: masks and write-protects /proc and /sys paths (unless privileged),
// creates the working directory, remounts / read-only when asked.
Status finish_rootfs(const LaunchSpec& spec);

// The overlay mount options; kInvalid for a path overlayfs cannot take (',' or ':').
Result<std::string> overlay_options(const LaunchSpec& spec);

}  // namespace k3c::runtime::shim
