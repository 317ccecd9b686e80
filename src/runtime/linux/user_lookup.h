// Who a container process runs as: the image's USER ("name", "uid", "name:group", "uid:gid")
// or the pod's runAsUser/runAsGroup, resolved against the container's own /etc/passwd and
// /etc/group as containerd does. Pure: the files' contents are passed in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c::runtime {

struct UserIdentity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<uint32_t> additional_gids;  // from /etc/group membership, then supplemental groups
};

struct UserRequest {
  std::string image_user;               // the image config's USER, "" for root
  std::optional<int64_t> run_as_user;   // wins over the user part of image_user
  std::optional<int64_t> run_as_group;  // wins over every other group source
  std::vector<int64_t> supplemental_groups;
};

// `passwd` and `group` are the container's /etc/passwd and /etc/group ("" when absent).
// kInvalid with containerd's wording when a name cannot be found, e.g.
// "unable to find user nobody: no matching entries in passwd file".
Result<UserIdentity> resolve_user(const UserRequest& request, std::string_view passwd,
                                  std::string_view group);

}  // namespace k3c::runtime
