// The Linux machine probe and its parsers (see machine_probe.h).
#include "roles/kubelet/machine_probe.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "core/ids.h"

namespace k3c::kubelet {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return std::string(s);
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<std::string> first_ipv4_of(const std::string& interface) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return std::nullopt;
  std::optional<std::string> found;
  for (ifaddrs* a = list; a != nullptr && !found; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if (interface != a->ifa_name || (a->ifa_flags & IFF_LOOPBACK)) continue;
    char text[INET_ADDRSTRLEN];
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) found = text;
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

std::string goarch(std::string_view machine) {
  if (machine == "x86_64" || machine == "amd64") return "amd64";
  if (machine == "aarch64" || machine == "arm64" || machine == "aarch64_be") return "arm64";
  if (machine.starts_with("armv") || machine == "arm") return "arm";
  if (machine == "i386" || machine == "i486" || machine == "i586" || machine == "i686") {
    return "386";
  }
  if (machine == "ppc64le" || machine == "s390x" || machine == "riscv64") {
    return std::string(machine);
  }
  return std::string(machine);
}

int64_t mem_total_bytes(std::string_view meminfo) {
  for (std::string_view line : split_lines(meminfo)) {
    if (!line.starts_with("MemTotal:")) continue;
    auto parts = fields(line.substr(9));
    if (parts.empty()) return 0;
    int64_t kib = 0;
    auto [end, ec] = std::from_chars(parts[0].data(), parts[0].data() + parts[0].size(), kib);
    if (ec != std::errc() || kib < 0 || kib > std::numeric_limits<int64_t>::max() / 1024) return 0;
    return kib * 1024;  // the file says "kB" and means KiB
  }
  return 0;
}

std::string os_pretty_name(std::string_view os_release) {
  for (std::string_view line : split_lines(os_release)) {
    if (!line.starts_with("PRETTY_NAME=")) continue;
    std::string_view value = line.substr(12);
    std::string out;
    char quote = 0;
    if (!value.empty() && (value.front() == '"' || value.front() == '\'')) {
      quote = value.front();
      value.remove_prefix(1);
    }
    for (size_t i = 0; i < value.size(); ++i) {
      if (quote && value[i] == quote) break;
      if (quote == '"' && value[i] == '\\' && i + 1 < value.size()) ++i;
      out += value[i];
    }
    out = trimmed(out);
    if (!out.empty()) return out;
  }
  return "Linux";
}

std::string default_route_interface(std::string_view proc_net_route) {
  std::string best;
  int64_t best_metric = std::numeric_limits<int64_t>::max();
  auto lines = split_lines(proc_net_route);
  for (size_t i = 1; i < lines.size(); ++i) {  // the first line is the header
    // Iface Destination Gateway Flags RefCnt Use Metric Mask ...
    auto f = fields(lines[i]);
    if (f.size() < 8 || f[1] != "00000000" || f[7] != "00000000") continue;
    int64_t metric = 0;
    std::from_chars(f[6].data(), f[6].data() + f[6].size(), metric);
    if (metric < best_metric) {
      best_metric = metric;
      best = std::string(f[0]);
    }
  }
  return best;
}

MachineInfo LinuxMachineProbe::probe() const {
  MachineInfo m;
  m.hostname = host_name();
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  m.cpus = cpus > 0 ? cpus : 1;
  m.memory_bytes = mem_total_bytes(read_file("/proc/meminfo"));
  struct statfs fs {};
  if (statfs(data_dir_.c_str(), &fs) == 0) {
    m.ephemeral_storage_bytes = static_cast<int64_t>(fs.f_blocks) * fs.f_frsize;
  }
  m.machine_id = trimmed(read_file("/etc/machine-id"));
  m.system_uuid = trimmed(read_file("/sys/class/dmi/id/product_uuid"));
  m.boot_id = trimmed(read_file("/proc/sys/kernel/random/boot_id"));
  utsname un{};
  if (uname(&un) == 0) {
    m.kernel_version = un.release;
    m.architecture = goarch(un.machine);
  }
  std::string os_release = read_file("/etc/os-release");
  if (os_release.empty()) os_release = read_file("/usr/lib/os-release");
  m.os_image = os_pretty_name(os_release);
  std::string interface = default_route_interface(read_file("/proc/net/route"));
  if (!interface.empty()) m.default_ipv4 = first_ipv4_of(interface);
  return m;
}

}  // namespace k3c::kubelet
