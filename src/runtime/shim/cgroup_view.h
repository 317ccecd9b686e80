// What a container sees at /sys/fs/cgroup, chosen as containerd's CRI plugin and runc choose
// it: the plan is pure (it reads the host's layout from the text of /proc/self/mountinfo and
// /proc/self/cgroup, taken by the container's process once it is in its cgroups);
// rootfs_mounts.cpp carries it out.
//
// - cgroup v2 (cgroup2 mounted at /sys/fs/cgroup): a new cgroup namespace, unshared after
//   the process was placed in its cgroup, so that its own cgroup is its root ("0::/"), and a
//   read-only cgroup2 mount. A privileged container keeps the host's cgroup namespace and gets
//   the mount read-write (containerd: "cgroupns is not used in cgroup v1 mode or in
//   privileged").
// - cgroup v1 and hybrid: the host's cgroup namespace; a tmpfs at /sys/fs/cgroup and in it,
//   per v1 hierarchy mounted under the host's /sys/fs/cgroup, a bind of the container's own
//   cgroup directory of that hierarchy at the same name ("memory", "cpu,cpuacct",
//   "systemd"), plus for a co-mount a link per controller ("cpu" -> "cpu,cpuacct"). All of
//   it read-only unless privileged. An (empty) hybrid cgroup2 at /sys/fs/cgroup/unified is
//   not shown, as runc does not.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace k3c::runtime::shim {

struct CgroupBind {
  std::string host_dir;  // the container's cgroup directory in one hierarchy, on the host
  std::string name;      // its name under /sys/fs/cgroup ("memory", "cpu,cpuacct")
};

struct CgroupView {
  enum class Kind {
    kNone,          // no cgroups mounted at the host's /sys/fs/cgroup: nothing to show
    kUnified,       // cgroup v2
    kPerHierarchy,  // cgroup v1 (or hybrid)
  };
  Kind kind = Kind::kNone;
  bool new_namespace = false;  // unshare(CLONE_NEWCGROUP) before mounting
  bool read_only = true;
  std::vector<CgroupBind> binds;                           // kPerHierarchy
  std::vector<std::pair<std::string, std::string>> links;  // name -> target, kPerHierarchy
};

// The view for a process whose /proc/self/mountinfo and /proc/self/cgroup are given.
// kInternal when a v1 hierarchy's cgroup of the process lies outside what the host has
// mounted of it (a nested, namespaced host), or is not listed at all.
Result<CgroupView> plan_cgroup_view(std::string_view mountinfo, std::string_view self_cgroup,
                                    bool privileged);

}  // namespace k3c::runtime::shim
