// fsGroup ownership of a pod's volumes, as upstream's SetVolumeOwnership
// (pkg/volume/volume_linux.go): every file and directory below the volume gets the group
// fsGroup (lchown, symlinks themselves included but never followed), files gain group rw
// (r for read-only volumes), directories also group x and the setgid bit, so that files the
// containers create inherit the group. fsGroupChangePolicy OnRootMismatch skips the walk when
// the volume's root already has the group and those bits. Applied by the volume manager to
// emptyDir, configMap, secret, downwardAPI and projected volumes (upstream's hostPath does not
// support ownership management; the local-path provisioner's volumes are hostPath).
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace k3c::kubelet::volumes {

enum class FsGroupChangePolicy { kAlways, kOnRootMismatch };

Status set_volume_ownership(const std::string& dir, int64_t fs_group, bool read_only,
                            FsGroupChangePolicy policy);

}  // namespace k3c::kubelet::volumes
