// Cgroups for pods and containers, on cgroup v2 (one hierarchy, controllers enabled through
// cgroup.subtree_control) and v1 (one hierarchy per controller, as on hybrid hosts). Callers
// name a cgroup by a path relative to the roots ("kubepods/burstable/pod<uid>/<cid>"); the
// manager maps it onto every hierarchy it uses. doc/runtime.md ("Cgroups") has the file map.
//
// Managed controllers: cpu (shares/weight, CFS quota), cpuacct (v1 usage), memory (limit,
// usage, OOM kills), pids (limit, count) and freezer (v1, used to kill atomically). Other v1
// hierarchies (cpuset, devices, blkio, ...) are left alone: a process stays in their root.
//
// Ownership and threads: the manager holds no state after detect() besides the layout it found;
// every method may be called from any thread (the OS seam is thread-safe).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/cgroups/cgroup_os.h"
#include "runtime/runtime_service.h"

namespace k3c::runtime {

struct CgroupStats {
  uint64_t cpu_usage_nanos = 0;     // cumulative
  uint64_t memory_usage_bytes = 0;  // v2 memory.current, v1 memory.usage_in_bytes
  // usage - inactive_file, clamped at 0: what cadvisor and the kubelet's eviction call the
  // working set.
  uint64_t memory_working_set_bytes = 0;
  uint64_t oom_kills = 0;  // processes the memory limit killed
  uint64_t pids_current = 0;
};

class CgroupManager {
 public:
  // Finds the layout under `root`: cgroup2 mounted at root -> v2; otherwise every v1
  // hierarchy (a cgroup mount under root, co-mounts such as "cpu,cpuacct" counted once) that
  // carries a managed controller -> v1, also on hybrid hosts where an (empty) v2 hierarchy
  // sits at root/unified. kNotFound when there are no cgroups at root.
  static Result<std::unique_ptr<CgroupManager>> detect(std::string root = "/sys/fs/cgroup");
  static Result<std::unique_ptr<CgroupManager>> detect(std::shared_ptr<CgroupOs> os,
                                                       std::string root);

  bool unified() const { return unified_; }
  // The managed controllers found, e.g. {"cpu", "cpuacct", "freezer", "memory", "pids"}.
  std::vector<std::string> controllers() const;
  // "cgroup v2 at /sys/fs/cgroup (cpu memory pids)", for logs.
  std::string describe() const;

  // Creates the cgroup and its missing parents in every hierarchy and applies `r`. In v2 the
  // managed controllers are enabled in the subtree_control of each ancestor. kInvalid for a
  // bad path or resources, or a limit whose controller is not available. A cgroup that
  // already exists is updated.
  Status create(const std::string& path, const LinuxResources& r);
  // Applies `r` to an existing cgroup (0 = unlimited: limits set before are lifted).
  // kNotFound when it does not exist; kInvalid for a memory limit below the current usage.
  Status update(const std::string& path, const LinuxResources& r);

  // Every cgroup.procs file a process must be written to, one per hierarchy.
  std::vector<std::string> procs_files(const std::string& path) const;
  // Moves process `pid` into the (existing) cgroup, in every hierarchy.
  Status add_process(const std::string& path, pid_t pid);

  // kNotFound when the cgroup does not exist. Counters of a missing controller read 0.
  Result<CgroupStats> stats(const std::string& path) const;

  // SIGKILLs every process in the cgroup and its descendants: v2 cgroup.kill when the kernel
  // has it; else the cgroup is frozen (when a freezer is available), each process is signalled
  // and it is thawed. Returns once every process was signalled; exiting takes a moment more
  // (remove() waits for that). kOk when the cgroup does not exist.
  Status kill_all(const std::string& path);

  // Thaws the cgroup if it is frozen. k3c freezes only inside kill_all, which always thaws;
  // a k3c that died between the two leaves the container frozen, so the runtime thaws every
  // container it finds when it opens. Nothing to do without a freezer or a cgroup.
  void thaw(const std::string& path);

  // Removes the cgroup and its descendants in every hierarchy, deepest first, retrying while
  // processes drain (about a second). kOk when already gone; kConflict when processes stay.
  Status remove(const std::string& path);

  // The names of the child cgroups (in any hierarchy), sorted. "" lists the top level.
  // kNotFound when the cgroup does not exist.
  Result<std::vector<std::string>> children(const std::string& path) const;

 private:
  struct Hierarchy {
    std::string mount;                     // absolute directory
    std::vector<std::string> controllers;  // managed controllers it carries
  };

  CgroupManager(std::shared_ptr<CgroupOs> os, std::string root, bool unified,
                std::vector<Hierarchy> hierarchies)
      : os_(std::move(os)),
        root_(std::move(root)),
        unified_(unified),
        hierarchies_(std::move(hierarchies)) {}

  // The hierarchy carrying `controller`, or nullptr.
  const Hierarchy* hierarchy_of(const std::string& controller) const;
  std::string dir_in(const Hierarchy& h, const std::string& path) const;
  bool exists_anywhere(const std::string& path) const;
  Status check_available(const LinuxResources& r) const;
  Result<bool> make_dirs(const std::string& path);
  Status enable_controllers(const std::string& dir);
  Status apply(const std::string& path, const LinuxResources& r);
  Status apply_v1(const std::string& path, const LinuxResources& r);
  Status apply_v2(const std::string& path, const LinuxResources& r);
  Status check_memory_usage(const std::string& path, int64_t limit) const;
  Status write_control(const std::string& dir, const std::string& file, const std::string& value);
  Result<uint64_t> read_number(const std::string& file) const;
  std::vector<pid_t> pids_below(const std::string& dir) const;
  Status signal_all(const std::string& path);
  bool freeze(const std::string& path, bool frozen);
  Status remove_tree(const std::string& dir);

  std::shared_ptr<CgroupOs> os_;
  std::string root_;
  bool unified_ = false;
  // v2: one entry (root_, the managed controllers root_ offers); v1: one per hierarchy.
  std::vector<Hierarchy> hierarchies_;
};

}  // namespace k3c::runtime
