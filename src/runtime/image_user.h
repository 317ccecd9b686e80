// The user a container runs as, resolved inside its image's root filesystem the way runc and
// containerd do: "uid", "uid:gid", "name", "name:group", names looked up in the image's
// /etc/passwd and /etc/group (read inside the root: a symlink cannot point them at the host).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace k3c::runtime {

struct ImageUser {
  uint32_t uid = 0;
  uint32_t gid = 0;
  // The primary gid first, then the groups of /etc/group that list the user's name (as
  // containerd's additional gids); the kubelet appends the pod's supplementalGroups.
  std::vector<uint32_t> groups;
};

// `user` as in an image config's USER or from runAsUser ("" = root). kInvalid with
// runc's wording for names that are not there: `unable to find user foo: no matching entries
// in passwd file`, `unable to find group bar: no matching entries in group file`.
Result<ImageUser> resolve_image_user(const std::string& rootfs, const std::string& user);

}  // namespace k3c::runtime
