// The container's view of /sys/fs/cgroup (see cgroup_view.h).
#include "runtime/shim/cgroup_view.h"

#include <algorithm>
#include <map>

namespace k3c::runtime::shim {
namespace {

constexpr std::string_view kCgroupRoot = "/sys/fs/cgroup";

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) parts.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string digits = field.substr(i + 1, 3);
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out += static_cast<char>(std::stoi(digits, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

struct MountEntry {
  std::string root;        // the part of the filesystem mounted
  std::string mountpoint;  // where
  std::string fstype;
  std::vector<std::string> super_options;  // for cgroup v1: the controllers, "name=systemd"
};

// The mounts at /sys/fs/cgroup and directly below it, the last one at each point winning
// (mountinfo lists a mount on top of another after it).
std::map<std::string, MountEntry> cgroup_mounts(std::string_view mountinfo) {
  std::map<std::string, MountEntry> found;
  for (const std::string& line : split(mountinfo, '\n')) {
    const std::vector<std::string> fields = split(line, ' ');
    const auto dash = std::find(fields.begin(), fields.end(), "-");
    if (fields.size() < 5 || dash == fields.end() || fields.end() - dash < 4) continue;
    MountEntry entry{unescape(fields[3]), unescape(fields[4]), dash[1], split(dash[3], ',')};
    const std::string_view point = entry.mountpoint;
    const bool at_root = point == kCgroupRoot;
    const bool below = point.size() > kCgroupRoot.size() + 1 &&
                       point.substr(0, kCgroupRoot.size() + 1) == "/sys/fs/cgroup/" &&
                       point.find('/', kCgroupRoot.size() + 1) == std::string_view::npos;
    if (at_root || below) found[entry.mountpoint] = std::move(entry);
  }
  return found;
}

// /proc/self/cgroup's v1 lines ("4:memory:/k3c/pod1/c1"): controller -> cgroup path.
std::map<std::string, std::string> v1_cgroups(std::string_view self_cgroup) {
  std::map<std::string, std::string> paths;
  for (const std::string& line : split(self_cgroup, '\n')) {
    const size_t first = line.find(':');
    const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos || line.compare(0, first, "0") == 0) continue;
    for (const std::string& controller : split(line.substr(first + 1, second - first - 1), ','))
      paths[controller] = line.substr(second + 1);
  }
  return paths;
}

Result<CgroupBind> bind_of(const MountEntry& mount, const std::map<std::string, std::string>& own) {
  const std::string name = mount.mountpoint.substr(kCgroupRoot.size() + 1);
  for (const std::string& option : mount.super_options) {
    const auto it = own.find(option);
    if (it == own.end()) continue;
    const std::string& path = it->second;
    const std::string root = mount.root == "/" ? "" : mount.root;
    if (path.compare(0, root.size(), root) != 0 ||
        (path.size() > root.size() && path[root.size()] != '/')) {
      return error(Code::kInternal, "the container's cgroup " + path + " is outside the " +
                                        mount.root + " mounted at " + mount.mountpoint);
    }
    std::string rel = path.substr(root.size());
    if (rel == "/") rel.clear();
    return CgroupBind{mount.mountpoint + rel, name};
  }
  return error(Code::kInternal,
               "the container has no cgroup in the hierarchy at " + mount.mountpoint);
}

}  // namespace

Result<CgroupView> plan_cgroup_view(std::string_view mountinfo, std::string_view self_cgroup,
                                    bool privileged) {
  const std::map<std::string, MountEntry> mounts = cgroup_mounts(mountinfo);
  CgroupView view;
  view.read_only = !privileged;
  const auto top = mounts.find(std::string(kCgroupRoot));
  if (top != mounts.end() && top->second.fstype == "cgroup2") {
    view.kind = CgroupView::Kind::kUnified;
    view.new_namespace = !privileged;
    return view;
  }
  const std::map<std::string, std::string> own = v1_cgroups(self_cgroup);
  for (const auto& [point, mount] : mounts) {
    if (mount.fstype != "cgroup") continue;  // the tmpfs itself, a hybrid's cgroup2 "unified"
    ASSIGN_OR_RETURN(CgroupBind bind, bind_of(mount, own));
    view.binds.push_back(std::move(bind));
  }
  if (view.binds.empty()) return view;
  view.kind = CgroupView::Kind::kPerHierarchy;
  for (const CgroupBind& bind : view.binds) {
    if (bind.name.find(',') == std::string::npos) continue;
    for (const std::string& controller : split(bind.name, ',')) {
      const bool taken = std::any_of(view.binds.begin(), view.binds.end(),
                                     [&](const CgroupBind& b) { return b.name == controller; });
      if (!taken) view.links.emplace_back(controller, bind.name);
    }
  }
  return view;
}

}  // namespace k3c::runtime::shim
