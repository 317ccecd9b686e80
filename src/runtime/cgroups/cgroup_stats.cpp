// CgroupManager::stats (see cgroup_manager.h): usage counters from the control files, read the
// way cadvisor reads them so the kubelet's figures match upstream's.
#include "runtime/cgroups/cgroup_manager.h"
#include "runtime/cgroups/control_files.h"

namespace k3c::runtime {

Result<CgroupStats> CgroupManager::stats(const std::string& path) const {
  RETURN_IF_ERROR(cgroup_files::check_path(path));
  if (!exists_anywhere(path)) return error(Code::kNotFound, "cgroup " + path + " not found");
  using cgroup_files::keyed_value;
  // A missing file (a controller not there, a cgroup gone meanwhile) reads as zero.
  auto number = [&](const std::string& file) -> uint64_t {
    auto n = read_number(file);
    return n.is_ok() ? *n : 0;
  };
  auto keyed = [&](const std::string& file, const char* key) -> uint64_t {
    return keyed_value(os_->read(file).data, key).value_or(0);
  };
  CgroupStats s;
  uint64_t inactive_file = 0;
  if (unified_) {
    const std::string dir = dir_in(hierarchies_.front(), path);
    s.cpu_usage_nanos = keyed(dir + "/cpu.stat", "usage_usec") * 1000;
    s.memory_usage_bytes = number(dir + "/memory.current");
    inactive_file = keyed(dir + "/memory.stat", "inactive_file");
    s.oom_kills = keyed(dir + "/memory.events", "oom_kill");
    s.pids_current = number(dir + "/pids.current");
  } else {
    if (const Hierarchy* h = hierarchy_of("cpuacct")) {
      s.cpu_usage_nanos = number(dir_in(*h, path) + "/cpuacct.usage");
    }
    if (const Hierarchy* h = hierarchy_of("memory")) {
      const std::string dir = dir_in(*h, path);
      s.memory_usage_bytes = number(dir + "/memory.usage_in_bytes");
      // total_ counts the descendants too, as usage_in_bytes does (use_hierarchy).
      inactive_file = keyed(dir + "/memory.stat", "total_inactive_file");
      s.oom_kills = keyed(dir + "/memory.oom_control", "oom_kill");
    }
    if (const Hierarchy* h = hierarchy_of("pids"))
      s.pids_current = number(dir_in(*h, path) + "/pids.current");
  }
  s.memory_working_set_bytes =
      s.memory_usage_bytes > inactive_file ? s.memory_usage_bytes - inactive_file : 0;
  return s;
}

}  // namespace k3c::runtime
