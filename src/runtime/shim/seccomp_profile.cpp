// Seccomp profiles compiled with libseccomp (see seccomp_profile.h).
#include "runtime/shim/seccomp_profile.h"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runtime/files.h"
#include "runtime/linux/capabilities.h"
#include "runtime/shim/identity.h"

extern const std::string_view k3c_embedded_seccomp_default_profile;

namespace k3c::runtime::shim {
namespace {

using nlohmann::json;

// Go's name of this architecture: what includes/excludes "arches" compare against.
#if defined(__x86_64__)
constexpr std::string_view kGoArch = "amd64";
#elif defined(__aarch64__)
constexpr std::string_view kGoArch = "arm64";
#elif defined(__arm__)
constexpr std::string_view kGoArch = "arm";
#elif defined(__i386__)
constexpr std::string_view kGoArch = "386";
#else
constexpr std::string_view kGoArch = "";
#endif

Status invalid(const std::string& what) {
  return error(Code::kInvalid, "seccomp profile: " + what);
}

struct ContextDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using Context = std::unique_ptr<void, ContextDeleter>;

// A JSON number that is a whole number >= 0.
std::optional<uint64_t> unsigned_of(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<uint64_t>();
  return std::nullopt;
}

// "SCMP_ARCH_X86_64" -> libseccomp's token for it; 0 when unknown.
uint32_t arch_token(const std::string& name) {
  std::string lower = name.rfind("SCMP_ARCH_", 0) == 0 ? name.substr(10) : name;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  return seccomp_arch_resolve_name(lower.c_str());
}

// "SCMP_ACT_ERRNO" with its errno (`errno_ret`, else EPERM) -> libseccomp's action.
Result<uint32_t> action(const json& name, const json* errno_ret) {
  if (!name.is_string()) return invalid("an action is not a string");
  const std::string& a = name.get_ref<const std::string&>();
  int code = EPERM;
  if (errno_ret != nullptr && !errno_ret->is_null()) {
    auto value = unsigned_of(*errno_ret);
    if (!value || *value > 4095) return invalid("an errno must be a number from 0 to 4095");
    code = static_cast<int>(*value);
  }
  if (a == "SCMP_ACT_ALLOW") return SCMP_ACT_ALLOW;
  if (a == "SCMP_ACT_ERRNO") return SCMP_ACT_ERRNO(code);
  if (a == "SCMP_ACT_KILL" || a == "SCMP_ACT_KILL_THREAD") return SCMP_ACT_KILL;
  if (a == "SCMP_ACT_KILL_PROCESS") return SCMP_ACT_KILL_PROCESS;
  if (a == "SCMP_ACT_TRAP") return SCMP_ACT_TRAP;
  if (a == "SCMP_ACT_TRACE") return SCMP_ACT_TRACE(code);
  if (a == "SCMP_ACT_LOG") return SCMP_ACT_LOG;
  if (a == "SCMP_ACT_NOTIFY") {
    return error(Code::kNotImplemented, "seccomp profile: SCMP_ACT_NOTIFY is not supported");
  }
  return invalid("unknown action \"" + a + "\"");
}

Result<scmp_compare> compare_op(const json& op) {
  static constexpr std::pair<std::string_view, scmp_compare> kOps[] = {
      {"SCMP_CMP_NE", SCMP_CMP_NE},
      {"SCMP_CMP_LT", SCMP_CMP_LT},
      {"SCMP_CMP_LE", SCMP_CMP_LE},
      {"SCMP_CMP_EQ", SCMP_CMP_EQ},
      {"SCMP_CMP_GE", SCMP_CMP_GE},
      {"SCMP_CMP_GT", SCMP_CMP_GT},
      {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ}};
  if (op.is_string()) {
    for (const auto& [name, value] : kOps) {
      if (op.get_ref<const std::string&>() == name) return value;
    }
  }
  return invalid("unknown argument operator " + op.dump());
}

// A list of strings, or none when the key is absent or null. Anything else is an error: a
// rule whose names were silently dropped would leave a syscall unfiltered.
Result<std::vector<std::string>> string_list(const json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return out;
  if (!it->is_array()) return invalid(std::string(key) + " is not a list of strings");
  for (const json& v : *it) {
    if (!v.is_string()) return invalid(std::string(key) + " is not a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

// "5.4.0-100-generic" -> {5, 4}.
std::pair<int, int> kernel_version(const std::string& release) {
  int major = 0, minor = 0;
  sscanf(release.c_str(), "%d.%d", &major, &minor);
  return {major, minor};
}

// Whether a rule's includes/excludes let it apply to this process on this machine
// (containerd's rules: every included capability kept, no excluded one kept).
Result<bool> rule_applies(const json& rule, uint64_t capabilities) {
  const auto kept = [&](const std::string& name) -> Result<bool> {
    auto number = capability_number(name);
    if (!number) return invalid("unknown capability \"" + name + "\"");
    return ((capabilities >> *number) & 1) != 0;
  };
  for (const char* key : {"includes", "excludes"}) {
    auto filter = rule.find(key);
    if (filter == rule.end() || filter->is_null()) continue;
    if (!filter->is_object()) return invalid(std::string(key) + " is not an object");
    const bool include = key[0] == 'i';
    ASSIGN_OR_RETURN(const auto caps, string_list(*filter, "caps"));
    for (const std::string& cap : caps) {
      ASSIGN_OR_RETURN(bool has, kept(cap));
      if (has != include) return false;
    }
    ASSIGN_OR_RETURN(const auto arches, string_list(*filter, "arches"));
    if (!arches.empty()) {
      const bool here = std::find(arches.begin(), arches.end(), kGoArch) != arches.end();
      if (here != include) return false;
    }
    if (auto min = filter->find("minKernel"); min != filter->end() && min->is_string()) {
      utsname u{};
      uname(&u);
      const bool newer = kernel_version(u.release) >= kernel_version(min->get<std::string>());
      if (newer != include) return false;
    }
  }
  return true;
}

// The architectures to add beside the native one: "architectures", else the archMap entry of
// the native architecture with its sub-architectures.
Result<std::vector<uint32_t>> profile_arches(const json& profile) {
  ASSIGN_OR_RETURN(std::vector<std::string> names, string_list(profile, "architectures"));
  if (names.empty()) {
    if (auto map = profile.find("archMap"); map != profile.end() && map->is_array()) {
      for (const json& entry : *map) {
        if (!entry.is_object() || !entry.contains("architecture")) continue;
        const json& arch = entry["architecture"];
        if (!arch.is_string() || arch_token(arch.get<std::string>()) != seccomp_arch_native()) {
          continue;
        }
        ASSIGN_OR_RETURN(names, string_list(entry, "subArchitectures"));
      }
    }
  }
  std::vector<uint32_t> out;
  for (const std::string& name : names) {
    const uint32_t token = arch_token(name);
    if (token == 0) return invalid("unknown architecture \"" + name + "\"");
    out.push_back(token);
  }
  return out;
}

Result<std::vector<scmp_arg_cmp>> conditions(const json& rule) {
  std::vector<scmp_arg_cmp> out;
  auto args = rule.find("args");
  if (args == rule.end() || args->is_null()) return out;
  if (!args->is_array()) return invalid("args is not a list");
  for (const json& arg : *args) {
    if (!arg.is_object()) return invalid("an argument condition is not an object");
    const auto index = unsigned_of(arg.value("index", json()));
    const auto value = unsigned_of(arg.value("value", json(0)));
    const auto value_two = unsigned_of(arg.value("valueTwo", json(0)));
    if (!index || *index > 5) return invalid("an argument index must be 0 to 5");
    if (!value || !value_two) return invalid("an argument value is not an unsigned number");
    ASSIGN_OR_RETURN(scmp_compare op, compare_op(arg.value("op", json())));
    out.push_back({static_cast<unsigned>(*index), op, *value, *value_two});
  }
  return out;
}

// Adds `rule` for each of its syscall names. Conditions on different arguments must all hold;
// several on the same argument are alternatives (one rule each), as runc adds them.
Status add_rule(void* ctx, const json& rule, uint32_t default_action) {
  ASSIGN_OR_RETURN(uint32_t act, action(rule.value("action", json()),
                                        rule.contains("errnoRet") ? &rule["errnoRet"] : nullptr));
  ASSIGN_OR_RETURN(std::vector<scmp_arg_cmp> conds, conditions(rule));
  if (act == default_action) return Status::ok();  // libseccomp refuses it; it changes nothing
  ASSIGN_OR_RETURN(std::vector<std::string> names, string_list(rule, "names"));
  if (auto name = rule.find("name"); name != rule.end() && name->is_string()) {
    names.push_back(name->get<std::string>());
  }
  bool same_argument = false;
  for (size_t i = 0; i < conds.size(); ++i) {
    for (size_t j = i + 1; j < conds.size(); ++j) same_argument |= conds[i].arg == conds[j].arg;
  }
  for (const std::string& name : names) {
    const int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR) continue;  // not a syscall of this architecture
    int rc = 0;
    if (same_argument) {
      for (const scmp_arg_cmp& c : conds) {
        if ((rc = seccomp_rule_add_array(ctx, act, nr, 1, &c)) != 0) break;
      }
    } else {
      rc = seccomp_rule_add_array(ctx, act, nr, static_cast<unsigned>(conds.size()), conds.data());
    }
    if (rc != 0) return invalid("add the rule for " + name + ": " + strerror(-rc));
  }
  return Status::ok();
}

// libseccomp writes the program to a file descriptor; a memfd brings it back as bytes.
Result<std::vector<sock_filter>> export_program(void* ctx) {
  const int fd = memfd_create("k3c-seccomp", MFD_CLOEXEC);
  if (fd < 0) return error(Code::kInternal, std::string("memfd_create: ") + strerror(errno));
  std::vector<sock_filter> program;
  Status status = Status::ok();
  if (const int rc = seccomp_export_bpf(ctx, fd); rc != 0) {
    status = error(Code::kInternal, std::string("export the seccomp filter: ") + strerror(-rc));
  } else {
    const off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0 || size % sizeof(sock_filter) != 0) {
      status = error(Code::kInternal, "the exported seccomp filter has a bad size");
    } else {
      program.resize(size / sizeof(sock_filter));
      if (pread(fd, program.data(), size, 0) != size) {
        status = error(Code::kInternal, "read the exported seccomp filter back");
      }
    }
  }
  close(fd);
  if (!status.is_ok()) return status;
  if (program.size() > BPF_MAXINSNS) return invalid("the filter is too long");
  return program;
}

}  // namespace

std::string_view runtime_default_profile() { return k3c_embedded_seccomp_default_profile; }

Result<std::vector<sock_filter>> compile_seccomp_profile(std::string_view text,
                                                         uint64_t capabilities) {
  json profile;
  try {
    profile = json::parse(text);
  } catch (const std::exception& e) {
    return invalid(std::string("not JSON: ") + e.what());
  }
  if (!profile.is_object()) return invalid("not a JSON object");
  if (!profile.contains("defaultAction")) return invalid("no defaultAction");
  ASSIGN_OR_RETURN(
      uint32_t default_action,
      action(profile["defaultAction"],
             profile.contains("defaultErrnoRet") ? &profile["defaultErrnoRet"] : nullptr));
  ASSIGN_OR_RETURN(std::vector<uint32_t> arches, profile_arches(profile));
  Context ctx(seccomp_init(default_action));
  if (!ctx) return invalid("libseccomp refused the default action");
  // A process of an architecture the filter does not list gets the default action, not a kill.
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, default_action);
  // A binary tree of syscall numbers instead of one test each (libseccomp 2.5+; best effort).
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2);
  for (uint32_t arch : arches) {
    const int rc = seccomp_arch_add(ctx.get(), arch);
    if (rc != 0 && rc != -EEXIST)
      return invalid(std::string("add an architecture: ") + strerror(-rc));
  }
  auto rules = profile.find("syscalls");
  if (rules != profile.end() && !rules->is_null()) {
    if (!rules->is_array()) return invalid("syscalls is not a list");
    for (const json& rule : *rules) {
      if (!rule.is_object()) return invalid("a syscalls entry is not an object");
      ASSIGN_OR_RETURN(bool applies, rule_applies(rule, capabilities));
      if (applies) RETURN_IF_ERROR(add_rule(ctx.get(), rule, default_action));
    }
  }
  return export_program(ctx.get());
}

Result<std::optional<std::vector<sock_filter>>> seccomp_filter_for(const ProcessSpec& process,
                                                                   uint64_t capabilities) {
  if (process.seccomp == SeccompProfile::kUnconfined) {
    return std::optional<std::vector<sock_filter>>();
  }
  if (!process.seccomp_program.empty()) {
    const std::string& bytes = process.seccomp_program;
    if (bytes.size() % sizeof(sock_filter) != 0) {
      return error(Code::kCorrupt, "the compiled seccomp filter has a bad size");
    }
    std::vector<sock_filter> program(bytes.size() / sizeof(sock_filter));
    std::memcpy(program.data(), bytes.data(), bytes.size());
    return std::optional<std::vector<sock_filter>>(std::move(program));
  }
  ASSIGN_OR_RETURN(std::vector<sock_filter> program,
                   compile_seccomp_profile(process.seccomp == SeccompProfile::kLocalhost
                                               ? std::string_view(process.seccomp_profile)
                                               : runtime_default_profile(),
                                           capabilities));
  return std::optional<std::vector<sock_filter>>(std::move(program));
}

Result<std::string> load_seccomp_profile(const std::string& path) {
  constexpr size_t kMaxProfileBytes = 1 << 20;
  auto text = read_file(path, kMaxProfileBytes);
  if (!text.is_ok()) {
    return error(Code::kInvalid,
                 "failed to generate seccomp spec opts: cannot load seccomp "
                 "profile \"" +
                     path + "\": " + text.status().message());
  }
  return std::move(*text);
}

Status SeccompPrograms::compile_into(ProcessSpec& process) {
  process.seccomp_program.clear();
  if (process.seccomp == SeccompProfile::kUnconfined) return Status::ok();
  ASSIGN_OR_RETURN(uint64_t caps, capabilities_to_keep(process, last_capability()));
  std::pair<std::string, uint64_t> key{process.seccomp == SeccompProfile::kLocalhost
                                           ? process.seccomp_profile
                                           : std::string(runtime_default_profile()),
                                       caps};
  {
    std::lock_guard lock(mu_);
    if (auto it = programs_.find(key); it != programs_.end()) {
      process.seccomp_program = it->second;
      return Status::ok();
    }
  }
  auto program = compile_seccomp_profile(key.first, caps);  // outside the lock: ~10 ms
  if (!program.is_ok()) {
    return error(program.status().code(),
                 "failed to generate seccomp spec opts: " + program.status().message());
  }
  process.seccomp_program.assign(reinterpret_cast<const char*>(program->data()),
                                 program->size() * sizeof(sock_filter));
  std::lock_guard lock(mu_);
  if (programs_.emplace(key, process.seccomp_program).second) {
    order_.push_back(std::move(key));
    if (order_.size() > 64) {
      programs_.erase(order_.front());
      order_.pop_front();
    }
  }
  return Status::ok();
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
