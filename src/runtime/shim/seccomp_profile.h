// Seccomp profiles, compiled with libseccomp. A profile is JSON in the format Docker,
// containerd and the kubelet's Localhost profiles share: defaultAction (+ defaultErrnoRet),
// architectures or archMap, and syscalls rules {names, action, errnoRet, args [{index, value,
// valueTwo, op}], includes/excludes {caps, arches, minKernel}}. RuntimeDefault is such a
// profile too (seccomp_default.json, embedded at build time): the syscalls containerd's
// default profile allows, more for some kept capabilities, personality() only with the usual
// values, clone() without namespace flags unless CAP_SYS_ADMIN is kept, clone3() answering
// ENOSYS then (so libc falls back to clone); everything else fails with EPERM. As containerd,
// it covers the host's secondary ABIs too (x86 and x32 beside x86_64, arm beside aarch64).
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/shim/container_process.h"

namespace k3c::runtime::shim {

// The RuntimeDefault profile's JSON text.
std::string_view runtime_default_profile();

// The BPF program of `profile` (JSON text) for a process that keeps the capabilities in
// `capabilities` (a bit mask), on this machine's architecture and kernel. Syscall names this
// architecture lacks are skipped, as runc does. kInvalid names what is wrong in a malformed
// profile (an unknown action, operator, architecture or capability, a bad field type).
Result<std::vector<sock_filter>> compile_seccomp_profile(std::string_view profile,
                                                         uint64_t capabilities);

// The filter `process` asks for (nullopt for Unconfined): its seccomp_program when set, else
// compiled from its profile.
Result<std::optional<std::vector<sock_filter>>> seccomp_filter_for(const ProcessSpec& process,
                                                                   uint64_t capabilities);

// Compiled programs by profile text and capability set, so that a profile is compiled once
// per k3c process and not at each container start and exec (RuntimeDefault with its three
// ABIs takes ~10 ms). Thread-safe; holds at most 64 programs (the oldest goes first).
class SeccompPrograms {
 public:
  // Fills process.seccomp_program (Unconfined: leaves it empty). A profile that does not
  // compile gives containerd's "failed to generate seccomp spec opts: ..." error.
  Status compile_into(ProcessSpec& process);

 private:
  std::mutex mu_;  // guards programs_ and order_
  std::map<std::pair<std::string, uint64_t>, std::string> programs_;
  std::deque<std::pair<std::string, uint64_t>> order_;  // insertion order, for the bound
};

// The text of a Localhost profile file (at most 1 MiB), with containerd's message when it
// cannot be read.
Result<std::string> load_seccomp_profile(const std::string& path);

// Installs `filter` on the calling thread (inherited by everything it execs and forks).
Status install_seccomp_filter(const std::vector<sock_filter>& filter);

}  // namespace k3c::runtime::shim
