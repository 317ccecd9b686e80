// The OS calls the cgroup manager makes, as a seam: the Linux implementation touches
// /sys/fs/cgroup; unit tests pass a fake tree (test/fakes/fake_cgroup_os.h) that behaves like
// cgroupfs (control files appear on mkdir, rmdir of a busy cgroup fails with EBUSY).
//
// Every call returns an errno value (0 = success) rather than a Status: the manager decides
// what an errno means in context (EBUSY on rmdir = retry, EBUSY on a memory limit = below
// usage, ENOENT on a control file = the controller is not there).
//
// Thread-safety: the Linux implementation is stateless; fakes guard their own state.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace k3c::runtime {

struct OsRead {
  std::string data;
  int err = 0;
};

struct OsList {
  std::vector<std::string> names;
  int err = 0;
};

// What is mounted at a directory.
enum class FsType { kMissing, kCgroup2, kCgroup1, kOther };

class CgroupOs {
 public:
  virtual ~CgroupOs() = default;

  // The whole contents of a (small, virtual) file.
  virtual OsRead read(const std::string& path) const = 0;
  // One write(2) of `value` into an existing file (cgroupfs takes one value per write).
  virtual int write(const std::string& path, std::string_view value) = 0;
  virtual int make_dir(const std::string& path) = 0;    // EEXIST when it exists
  virtual int remove_dir(const std::string& path) = 0;  // rmdir(2)
  virtual bool exists(const std::string& path) const = 0;
  // The names of the subdirectories (symlinks to directories count), sorted.
  virtual OsList list_dirs(const std::string& path) const = 0;
  virtual FsType fs_type(const std::string& path) const = 0;
  // The path with symlinks resolved (v1 co-mounts appear as "cpu,cpuacct" plus symlinks
  // "cpu" and "cpuacct" to it); the path itself when it cannot be resolved.
  virtual std::string canonical(const std::string& path) const = 0;
  virtual int kill(pid_t pid, int signal) = 0;
  virtual void sleep_for(std::chrono::milliseconds delay) = 0;
};

// The real thing.
std::shared_ptr<CgroupOs> linux_cgroup_os();

}  // namespace k3c::runtime
