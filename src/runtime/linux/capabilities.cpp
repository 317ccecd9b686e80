#include "runtime/linux/capabilities.h"

#include <algorithm>
#include <cctype>

namespace k3c::runtime {
namespace {

// Index = capability number (linux/capability.h), up to CAP_CHECKPOINT_RESTORE (40).
constexpr std::string_view kNames[] = {"CHOWN",
                                       "DAC_OVERRIDE",
                                       "DAC_READ_SEARCH",
                                       "FOWNER",
                                       "FSETID",
                                       "KILL",
                                       "SETGID",
                                       "SETUID",
                                       "SETPCAP",
                                       "LINUX_IMMUTABLE",
                                       "NET_BIND_SERVICE",
                                       "NET_BROADCAST",
                                       "NET_ADMIN",
                                       "NET_RAW",
                                       "IPC_LOCK",
                                       "IPC_OWNER",
                                       "SYS_MODULE",
                                       "SYS_RAWIO",
                                       "SYS_CHROOT",
                                       "SYS_PTRACE",
                                       "SYS_PACCT",
                                       "SYS_ADMIN",
                                       "SYS_BOOT",
                                       "SYS_NICE",
                                       "SYS_RESOURCE",
                                       "SYS_TIME",
                                       "SYS_TTY_CONFIG",
                                       "MKNOD",
                                       "LEASE",
                                       "AUDIT_WRITE",
                                       "AUDIT_CONTROL",
                                       "SETFCAP",
                                       "MAC_OVERRIDE",
                                       "MAC_ADMIN",
                                       "SYSLOG",
                                       "WAKE_ALARM",
                                       "BLOCK_SUSPEND",
                                       "AUDIT_READ",
                                       "PERFMON",
                                       "BPF",
                                       "CHECKPOINT_RESTORE"};

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_all(std::string_view name) { return upper(name) == "ALL"; }

}  // namespace

std::optional<int> capability_number(std::string_view name) {
  std::string key = upper(name);
  if (key.rfind("CAP_", 0) == 0) key.erase(0, 4);
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (kNames[i] == key) return static_cast<int>(i);
  return std::nullopt;
}

const std::vector<std::string>& all_capabilities() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> names;
    for (std::string_view name : kNames) names.push_back("CAP_" + std::string(name));
    return names;
  }();
  return all;
}

const std::vector<std::string>& default_capabilities() {
  static const std::vector<std::string> defaults = {
      "CAP_CHOWN",       "CAP_DAC_OVERRIDE", "CAP_FOWNER",
      "CAP_FSETID",      "CAP_KILL",         "CAP_SETGID",
      "CAP_SETUID",      "CAP_SETPCAP",      "CAP_NET_BIND_SERVICE",
      "CAP_NET_RAW",     "CAP_SYS_CHROOT",   "CAP_MKNOD",
      "CAP_AUDIT_WRITE", "CAP_SETFCAP"};
  return defaults;
}

Result<std::vector<std::string>> container_capabilities(const SecurityConfig& security) {
  std::vector<bool> kept(std::size(kNames), false);
  for (const std::string& name : default_capabilities()) kept[*capability_number(name)] = true;
  const auto has_all = [](const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(), is_all);
  };
  if (security.privileged || has_all(security.add_capabilities)) kept.assign(kept.size(), true);
  if (!security.privileged && has_all(security.drop_capabilities)) kept.assign(kept.size(), false);
  if (!security.privileged) {
    for (const auto* list : {&security.add_capabilities, &security.drop_capabilities}) {
      const bool adding = list == &security.add_capabilities;
      for (const std::string& name : *list) {
        if (is_all(name)) continue;
        auto number = capability_number(name);
        if (!number) return error(Code::kInvalid, "unknown capability \"" + name + "\"");
        kept[*number] = adding;
      }
    }
  }
  // Every one (privileged, or ALL added and nothing dropped): "ALL", which the shim resolves
  // to the capabilities k3c itself has, as containerd's WithAllCurrentCapabilities. Named,
  // one that k3c lacks (a host whose bounding set is cut) would fail the container's capset.
  if (std::all_of(kept.begin(), kept.end(), [](bool k) { return k; })) return {{"ALL"}};
  std::vector<std::string> names;
  for (size_t i = 0; i < kept.size(); ++i)
    if (kept[i]) names.push_back(all_capabilities()[i]);
  return names;
}

}  // namespace k3c::runtime
