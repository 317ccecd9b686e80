// The process identity (see identity.h).
#include "runtime/shim/identity.h"

#include <grp.h>
#include <linux/capability.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/linux/capabilities.h"
#include "runtime/shim/seccomp_profile.h"

namespace k3c::runtime::shim {
namespace {

Status identity_failure(const std::string& what, int err) {
  return error(Code::kInvalid, what + ": " + std::strerror(err));
}

}  // namespace

int last_capability() {
  int last = static_cast<int>(all_capabilities().size()) - 1;
  if (FILE* f = fopen("/proc/sys/kernel/cap_last_cap", "re")) {
    int value = 0;
    if (fscanf(f, "%d", &value) == 1 && value > 0 && value < 64) last = value;
    fclose(f);
  }
  return last;
}

Result<uint64_t> capability_mask(const std::vector<std::string>& names, int last_cap) {
  uint64_t mask = 0;
  for (const std::string& raw : names) {
    std::string name;
    for (char c : raw) name += static_cast<char>(toupper(static_cast<unsigned char>(c)));
    if (name == "ALL") {
      mask |= last_cap >= 63 ? ~uint64_t{0} : (uint64_t{1} << (last_cap + 1)) - 1;
      continue;
    }
    auto found = capability_number(name);
    if (!found || *found > last_cap)
      return error(Code::kInvalid, "unknown capability \"" + raw + "\"");
    mask |= uint64_t{1} << *found;
  }
  return mask;
}

namespace {

// The permitted set of the calling process.
Result<uint64_t> permitted_now() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return identity_failure("capget", errno);
  return uint64_t{data[0].permitted} | (uint64_t{data[1].permitted} << 32);
}

}  // namespace

// "ALL" means every capability this process has (as containerd resolves it), not more: a k3c
// confined to fewer cannot hand out the rest.
Result<uint64_t> capabilities_to_keep(const ProcessSpec& process, int last_cap) {
  ASSIGN_OR_RETURN(uint64_t keep, capability_mask(process.capabilities, last_cap));
  for (const std::string& name : process.capabilities) {
    if (strcasecmp(name.c_str(), "ALL") != 0) continue;
    ASSIGN_OR_RETURN(uint64_t have, permitted_now());
    keep &= have;
  }
  return keep;
}

Status apply_identity(const ProcessSpec& process, int last_cap) {
  ASSIGN_OR_RETURN(uint64_t keep, capabilities_to_keep(process, last_cap));
  // The bounding set first: dropping needs CAP_SETPCAP, which we still hold.
  for (int cap = 0; cap <= last_cap; ++cap) {
    if (keep & (uint64_t{1} << cap)) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
      return identity_failure("drop capability " + std::to_string(cap) + " from the bounding set",
                              errno);
    }
  }
  // Keep the permitted set across the uid change; capset below trims it.
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
    return identity_failure("prctl(PR_SET_KEEPCAPS)", errno);
  std::vector<gid_t> groups(process.groups.begin(), process.groups.end());
  // Raw syscalls: this process has one thread, and glibc's wrappers would try to reach others.
  if (syscall(SYS_setgroups, groups.size(), groups.data()) != 0) {
    return identity_failure("setgroups", errno);
  }
  if (syscall(SYS_setresgid, process.gid, process.gid, process.gid) != 0) {
    return identity_failure("setgid " + std::to_string(process.gid), errno);
  }
  if (syscall(SYS_setresuid, process.uid, process.uid, process.uid) != 0) {
    return identity_failure("setuid " + std::to_string(process.uid), errno);
  }
  if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0)
    return identity_failure("prctl(PR_SET_KEEPCAPS)", errno);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  for (int i = 0; i < 2; ++i) {
    const auto word = static_cast<uint32_t>(keep >> (32 * i));
    data[i].effective = word;
    data[i].permitted = word;
    data[i].inheritable = 0;
  }
  if (syscall(SYS_capset, &header, data) != 0) return identity_failure("capset", errno);
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    return identity_failure("clear the ambient capabilities", errno);
  }
  if (process.no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return identity_failure("prctl(PR_SET_NO_NEW_PRIVS)", errno);
  }
  return Status::ok();
}

Status apply_seccomp(const ProcessSpec& process, int last_cap) {
  if (process.seccomp == SeccompProfile::kUnconfined) return Status::ok();
  ASSIGN_OR_RETURN(uint64_t keep, capabilities_to_keep(process, last_cap));
  ASSIGN_OR_RETURN(auto filter, seccomp_filter_for(process, keep));
  return filter ? install_seccomp_filter(*filter) : Status::ok();
}

}  // namespace k3c::runtime::shim
