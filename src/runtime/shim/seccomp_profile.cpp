// The RuntimeDefault seccomp filter (see seccomp_profile.h).
#include "runtime/shim/seccomp_profile.h"

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace k3c::runtime::shim {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
#else
constexpr uint32_t kNativeArch = 0;
#endif

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kEperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
constexpr uint32_t kEnosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);

constexpr uint32_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
                                     CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP;

struct SyscallEntry {
  int capability;  // -1: always allowed
  long nr;
};

constexpr SyscallEntry kEntries[] = {
#define K3C_ALLOW(name) {-1, SYS_##name},
#define K3C_ALLOW_WITH(cap, name) {cap, SYS_##name},
#include "runtime/shim/seccomp_syscalls.inc"
#undef K3C_ALLOW
#undef K3C_ALLOW_WITH
};

// Offsets into struct seccomp_data (little-endian: the low half of an argument comes first).
constexpr uint32_t kNrOffset = offsetof(seccomp_data, nr);
constexpr uint32_t kArchOffset = offsetof(seccomp_data, arch);
constexpr uint32_t arg_low(int i) { return offsetof(seccomp_data, args) + 8 * i; }
constexpr uint32_t arg_high(int i) { return arg_low(i) + 4; }

sock_filter stmt(uint16_t code, uint32_t k) { return BPF_STMT(code, k); }
sock_filter jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) {
  return BPF_JUMP(code, k, jt, jf);
}

}  // namespace

Result<std::vector<sock_filter>> runtime_default_filter(uint64_t capabilities) {
  if (kNativeArch == 0) {
    return error(Code::kNotImplemented,
                 "seccomp profile RuntimeDefault is not implemented on this architecture");
  }
  const auto has = [&](int cap) { return (capabilities >> cap) & 1; };
  const bool admin = has(CAP_SYS_ADMIN);
  std::vector<sock_filter> f;
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArchOffset));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 1, 0));
  f.push_back(stmt(BPF_RET | BPF_K, kEperm));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kNrOffset));
#if defined(__x86_64__)
  // The x32 ABI shares the arch value; its numbers carry this bit.
  f.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, kEperm));
#endif
  // One test per allowed syscall: equal -> fall through to ALLOW, else skip it.
  for (const SyscallEntry& e : kEntries) {
    if (e.capability >= 0 && !has(e.capability)) continue;
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(e.nr), 0, 1));
    f.push_back(stmt(BPF_RET | BPF_K, kAllow));
  }
  // personality(persona) for the values libc and tools use (0, 8, 0x20000, 0x20008,
  // 0xffffffff: query).
  {
    const uint32_t values[] = {0x0, 0x8, 0x20000, 0x20008, 0xffffffff};
    constexpr uint8_t n = sizeof values / sizeof values[0];
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_personality, 0, 5 + n));
    f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_high(0)));
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1 + n));  // -> EPERM
    f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(0)));
    for (uint8_t i = 0; i < n; ++i) {
      f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, values[i], static_cast<uint8_t>(n - i), 0));
    }
    f.push_back(stmt(BPF_RET | BPF_K, kEperm));
    f.push_back(stmt(BPF_RET | BPF_K, kAllow));
  }
  if (!admin) {
    // clone without namespace flags; clone3's flags are in memory, out of a filter's reach:
    // ENOSYS makes libc use clone.
    f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kNrOffset));
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
    f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(0)));
    f.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, kNamespaceFlags, 1, 0));
    f.push_back(stmt(BPF_RET | BPF_K, kAllow));
    f.push_back(stmt(BPF_RET | BPF_K, kEperm));
#ifdef SYS_clone3
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
    f.push_back(stmt(BPF_RET | BPF_K, kEnosys));
#endif
  }
  f.push_back(stmt(BPF_RET | BPF_K, kEperm));
  if (f.size() > BPF_MAXINSNS) return error(Code::kInternal, "the seccomp filter is too long");
  return f;
}

Status install_seccomp_filter(const std::vector<sock_filter>& filter) {
  sock_fprog program{static_cast<unsigned short>(filter.size()),
                     const_cast<sock_filter*>(filter.data())};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
    return error(Code::kInvalid, std::string("install the seccomp filter: ") + strerror(errno));
  }
  return Status::ok();
}

}  // namespace k3c::runtime::shim
