// Cgroup layout detection, creation and settings (see cgroup_manager.h). Stats live in
// cgroup_stats.cpp, killing and removal in cgroup_teardown.cpp.
#include "runtime/cgroups/cgroup_manager.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "runtime/cgroups/control_files.h"
#include "runtime/cgroups/resource_math.h"

namespace k3c::runtime {
namespace {

using cgroup_files::split;

// The controllers the manager drives.
const std::vector<std::string>& managed_controllers() {
  static const std::vector<std::string> names = {"cpu", "cpuacct", "freezer", "memory", "pids"};
  return names;
}

// What v2 enables in subtree_control on the way down (cpuacct and freezer are v1 names: v2
// has cpu.stat and cgroup.freeze in every cgroup).
const std::vector<std::string>& v2_enabled_controllers() {
  static const std::vector<std::string> names = {"cpu", "memory", "pids"};
  return names;
}

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> words;
  for (auto& w : split(s, ' ')) {
    for (auto& x : split(w, '\n')) words.push_back(std::move(x));
  }
  return words;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

Status check_resources(const LinuxResources& r) {
  auto bad = [](const std::string& why) {
    return error(Code::kInvalid, "invalid resources: " + why);
  };
  if (r.cpu_shares != 0 && (r.cpu_shares < kMinShares || r.cpu_shares > kMaxShares)) {
    return bad("cpu shares " + std::to_string(r.cpu_shares) + " outside [2, 262144]");
  }
  if (r.cpu_quota_us < 0 || r.memory_limit_bytes < 0 || r.pids_limit < 0) {
    return bad("negative cpu quota, memory limit or pids limit");
  }
  if (r.cpu_quota_us > 0 && r.cpu_quota_us < kMinQuotaUs) {
    return bad("cpu quota " + std::to_string(r.cpu_quota_us) + "us below the minimum of 1000us");
  }
  if (r.cpu_period_us < 1000 || r.cpu_period_us > 1000000) {
    return bad("cpu period " + std::to_string(r.cpu_period_us) + "us outside [1000, 1000000]");
  }
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<CgroupManager>> CgroupManager::detect(std::string root) {
  return detect(linux_cgroup_os(), std::move(root));
}

Result<std::unique_ptr<CgroupManager>> CgroupManager::detect(std::shared_ptr<CgroupOs> os,
                                                             std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  auto v2_at = [&](const std::string& mount) -> std::unique_ptr<CgroupManager> {
    OsRead available = os->read(mount + "/cgroup.controllers");
    Hierarchy h{mount, {}};
    for (const std::string& c : split_words(available.data)) {
      if (contains(v2_enabled_controllers(), c)) h.controllers.push_back(c);
    }
    std::sort(h.controllers.begin(), h.controllers.end());
    return std::unique_ptr<CgroupManager>(new CgroupManager(os, mount, true, {std::move(h)}));
  };
  const FsType type = os->fs_type(root);
  if (type == FsType::kMissing) {
    return error(Code::kNotFound, "no cgroup file system at " + root + ": it does not exist");
  }
  if (type == FsType::kCgroup2) return v2_at(root);
  // v1 or hybrid: each cgroup v1 mount below root is a hierarchy, named after its controllers
  // as systemd and cgroupfs-mount mount them; co-mounts appear once under their own name
  // ("cpu,cpuacct") and again through symlinks ("cpu", "cpuacct").
  std::vector<Hierarchy> hierarchies;
  std::set<std::string> seen;
  OsList names = os->list_dirs(root);
  for (const std::string& name : names.names) {
    const std::string dir = root + "/" + name;
    if (os->fs_type(dir) != FsType::kCgroup1) continue;
    const std::string mount = os->canonical(dir);
    if (!seen.insert(mount).second) continue;
    Hierarchy h{mount, {}};
    for (const std::string& c : split(mount.substr(mount.rfind('/') + 1), ',')) {
      if (contains(managed_controllers(), c)) h.controllers.push_back(c);
    }
    std::sort(h.controllers.begin(), h.controllers.end());
    if (!h.controllers.empty()) hierarchies.push_back(std::move(h));
  }
  if (!hierarchies.empty()) {
    return std::unique_ptr<CgroupManager>(
        new CgroupManager(os, root, false, std::move(hierarchies)));
  }
  if (os->fs_type(root + "/unified") == FsType::kCgroup2) return v2_at(root + "/unified");
  return error(Code::kNotFound, "no cgroup hierarchies under " + root +
                                    " (neither cgroup2 mounted there nor v1 controllers in it)");
}

std::vector<std::string> CgroupManager::controllers() const {
  std::vector<std::string> out;
  for (const Hierarchy& h : hierarchies_)
    out.insert(out.end(), h.controllers.begin(), h.controllers.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::string CgroupManager::describe() const {
  std::string out = unified_ ? "cgroup v2 at " + root_ + " (" : "cgroup v1 under " + root_ + " (";
  const auto names = controllers();
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + ")";
}

const CgroupManager::Hierarchy* CgroupManager::hierarchy_of(const std::string& controller) const {
  for (const Hierarchy& h : hierarchies_) {
    if (contains(h.controllers, controller)) return &h;
  }
  return nullptr;
}

std::string CgroupManager::dir_in(const Hierarchy& h, const std::string& path) const {
  return path.empty() ? h.mount : h.mount + "/" + path;
}

bool CgroupManager::exists_anywhere(const std::string& path) const {
  for (const Hierarchy& h : hierarchies_) {
    if (os_->exists(dir_in(h, path))) return true;
  }
  return false;
}

Status CgroupManager::check_available(const LinuxResources& r) const {
  auto need = [&](bool wanted, const char* controller) -> Status {
    if (!wanted || hierarchy_of(controller)) return Status::ok();
    return error(Code::kInvalid, std::string("cgroup controller \"") + controller +
                                     "\" is not available on this host (" + describe() + ")");
  };
  RETURN_IF_ERROR(need(r.cpu_shares > 0 || r.cpu_quota_us > 0, "cpu"));
  RETURN_IF_ERROR(need(r.memory_limit_bytes > 0, "memory"));
  return need(r.pids_limit > 0, "pids");
}

Status CgroupManager::write_control(const std::string& dir, const std::string& file,
                                    const std::string& value) {
  const int err = os_->write(dir + "/" + file, value);
  if (err == 0) return Status::ok();
  std::string what = "write \"" + value + "\" to " + dir + "/" + file + ": " + std::strerror(err);
  if (err == ENOENT) return error(Code::kInvalid, what + " (controller not enabled?)");
  if (err == EINVAL || err == ERANGE) return error(Code::kInvalid, what);
  return error(Code::kInternal, what);
}

Result<uint64_t> CgroupManager::read_number(const std::string& file) const {
  OsRead r = os_->read(file);
  if (r.err != 0) {
    return error(r.err == ENOENT ? Code::kNotFound : Code::kInternal,
                 "read " + file + ": " + std::strerror(r.err));
  }
  auto n = cgroup_files::parse_u64(r.data);
  if (!n) return error(Code::kInternal, "read " + file + ": not a number: " + r.data);
  return *n;
}

// Enables the v2 controllers in `dir`'s subtree_control so its children get them. Only the
// missing ones are written: a cgroup with processes of its own refuses any change (the
// "no internal processes" rule), but one already set up needs none.
Status CgroupManager::enable_controllers(const std::string& dir) {
  const auto available = split_words(os_->read(dir + "/cgroup.controllers").data);
  const auto enabled = split_words(os_->read(dir + "/cgroup.subtree_control").data);
  std::string change;
  for (const std::string& c : hierarchies_.front().controllers) {
    if (contains(available, c) && !contains(enabled, c))
      change += (change.empty() ? "+" : " +") + c;
  }
  if (change.empty()) return Status::ok();
  const int err = os_->write(dir + "/cgroup.subtree_control", change);
  if (err == 0) return Status::ok();
  std::string what = "enable controllers \"" + change + "\" in " + dir + ": " + std::strerror(err);
  if (err == EBUSY) what += " (the cgroup has processes of its own)";
  return error(Code::kInternal, what);
}

// Makes the cgroup and its missing parents in every hierarchy; true when the leaf is new.
Result<bool> CgroupManager::make_dirs(const std::string& path) {
  bool created = false;
  const auto segments = split(path, '/');
  for (const Hierarchy& h : hierarchies_) {
    std::string dir = h.mount;
    for (size_t i = 0; i < segments.size(); ++i) {
      if (unified_) RETURN_IF_ERROR(enable_controllers(dir));
      dir += "/" + segments[i];
      const int err = os_->make_dir(dir);
      if (err == 0 && i + 1 == segments.size()) created = true;
      if (err != 0 && err != EEXIST) {
        return error(
            err == EACCES || err == EPERM || err == EROFS ? Code::kForbidden : Code::kInternal,
            "create cgroup " + dir + ": " + std::strerror(err));
      }
    }
  }
  return created;
}

Status CgroupManager::create(const std::string& path, const LinuxResources& r) {
  RETURN_IF_ERROR(cgroup_files::check_path(path));
  RETURN_IF_ERROR(check_resources(r));
  RETURN_IF_ERROR(check_available(r));
  Result<bool> created = make_dirs(path);
  if (!created.is_ok()) return created.status();
  Status applied = apply(path, r);
  // A cgroup this call made but could not set up is not left half-configured; one that
  // existed before is the caller's.
  if (!applied.is_ok() && *created) {
    Status cleanup = remove(path);
    (void)cleanup;  // best effort: the first error is the one to report
  }
  return applied;
}

Status CgroupManager::update(const std::string& path, const LinuxResources& r) {
  RETURN_IF_ERROR(cgroup_files::check_path(path));
  RETURN_IF_ERROR(check_resources(r));
  RETURN_IF_ERROR(check_available(r));
  if (!exists_anywhere(path)) return error(Code::kNotFound, "cgroup " + path + " not found");
  return apply(path, r);
}

Status CgroupManager::apply(const std::string& path, const LinuxResources& r) {
  if (r.memory_limit_bytes > 0) RETURN_IF_ERROR(check_memory_usage(path, r.memory_limit_bytes));
  return unified_ ? apply_v2(path, r) : apply_v1(path, r);
}

// The kernel would reclaim and then OOM-kill (v2) or fail with a bare EBUSY (v1): say why.
Status CgroupManager::check_memory_usage(const std::string& path, int64_t limit) const {
  const Hierarchy* h = hierarchy_of("memory");
  if (!h) return Status::ok();
  auto usage =
      read_number(dir_in(*h, path) + (unified_ ? "/memory.current" : "/memory.usage_in_bytes"));
  if (!usage.is_ok() || *usage <= static_cast<uint64_t>(limit)) return Status::ok();
  return error(Code::kInvalid, "memory limit of " + std::to_string(limit) +
                                   " bytes is below the current usage of " +
                                   std::to_string(*usage) + " bytes of cgroup " + path);
}

Status CgroupManager::apply_v1(const std::string& path, const LinuxResources& r) {
  if (const Hierarchy* cpu = hierarchy_of("cpu")) {
    const std::string dir = dir_in(*cpu, path);
    if (r.cpu_shares > 0)
      RETURN_IF_ERROR(write_control(dir, "cpu.shares", std::to_string(r.cpu_shares)));
    // The kernel checks quota/period against the parent at each write: lift the quota before
    // changing the period, and set a new quota after it.
    if (r.cpu_quota_us > 0) {
      RETURN_IF_ERROR(write_control(dir, "cpu.cfs_period_us", std::to_string(r.cpu_period_us)));
      RETURN_IF_ERROR(write_control(dir, "cpu.cfs_quota_us", std::to_string(r.cpu_quota_us)));
    } else if (os_->exists(dir + "/cpu.cfs_quota_us")) {  // kernels without CFS bandwidth lack it
      RETURN_IF_ERROR(write_control(dir, "cpu.cfs_quota_us", "-1"));
    }
  }
  if (const Hierarchy* memory = hierarchy_of("memory")) {
    const std::string value =
        r.memory_limit_bytes > 0 ? std::to_string(r.memory_limit_bytes) : "-1";
    Status s = write_control(dir_in(*memory, path), "memory.limit_in_bytes", value);
    if (!s.is_ok() && s.message().find(std::strerror(EBUSY)) != std::string::npos) {
      return error(Code::kInvalid, "memory limit of " + value +
                                       " bytes is below the current usage of cgroup " + path +
                                       " and could not be reclaimed");
    }
    RETURN_IF_ERROR(s);
  }
  if (const Hierarchy* pids = hierarchy_of("pids")) {
    const std::string value = r.pids_limit > 0 ? std::to_string(r.pids_limit) : "max";
    RETURN_IF_ERROR(write_control(dir_in(*pids, path), "pids.max", value));
  }
  return Status::ok();
}

Status CgroupManager::apply_v2(const std::string& path, const LinuxResources& r) {
  const Hierarchy& h = hierarchies_.front();
  const std::string dir = dir_in(h, path);
  const std::string period = std::to_string(r.cpu_period_us);
  if (contains(h.controllers, "cpu")) {
    if (r.cpu_shares > 0) {
      RETURN_IF_ERROR(
          write_control(dir, "cpu.weight", std::to_string(shares_to_weight(r.cpu_shares))));
    }
    const std::string quota = r.cpu_quota_us > 0 ? std::to_string(r.cpu_quota_us) : "max";
    RETURN_IF_ERROR(write_control(dir, "cpu.max", quota + " " + period));
  }
  if (contains(h.controllers, "memory")) {
    const std::string value =
        r.memory_limit_bytes > 0 ? std::to_string(r.memory_limit_bytes) : "max";
    RETURN_IF_ERROR(write_control(dir, "memory.max", value));
  }
  if (contains(h.controllers, "pids")) {
    const std::string value = r.pids_limit > 0 ? std::to_string(r.pids_limit) : "max";
    RETURN_IF_ERROR(write_control(dir, "pids.max", value));
  }
  return Status::ok();
}

std::vector<std::string> CgroupManager::procs_files(const std::string& path) const {
  std::vector<std::string> files;
  for (const Hierarchy& h : hierarchies_) files.push_back(dir_in(h, path) + "/cgroup.procs");
  return files;
}

Status CgroupManager::add_process(const std::string& path, pid_t pid) {
  RETURN_IF_ERROR(cgroup_files::check_path(path));
  for (const Hierarchy& h : hierarchies_) {
    RETURN_IF_ERROR(write_control(dir_in(h, path), "cgroup.procs", std::to_string(pid)));
  }
  return Status::ok();
}

Result<std::vector<std::string>> CgroupManager::children(const std::string& path) const {
  if (!path.empty()) RETURN_IF_ERROR(cgroup_files::check_path(path));
  std::set<std::string> names;
  bool found = false;
  for (const Hierarchy& h : hierarchies_) {
    OsList list = os_->list_dirs(dir_in(h, path));
    if (list.err == ENOENT) continue;
    if (list.err != 0) {
      return error(Code::kInternal, "list " + dir_in(h, path) + ": " + std::strerror(list.err));
    }
    found = true;
    names.insert(list.names.begin(), list.names.end());
  }
  if (!found) return error(Code::kNotFound, "cgroup " + path + " not found");
  return std::vector<std::string>(names.begin(), names.end());
}

}  // namespace k3c::runtime
