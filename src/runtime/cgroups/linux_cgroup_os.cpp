// The Linux implementation of the cgroup OS seam (see cgroup_os.h).
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <thread>

#include "runtime/cgroups/cgroup_os.h"

namespace k3c::runtime {
namespace {

// Control files are small; memory.stat is the largest one read (a few KiB).
constexpr size_t kMaxControlFileBytes = 1 << 20;

class LinuxCgroupOs final : public CgroupOs {
 public:
  OsRead read(const std::string& path) const override {
    OsRead out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {"", errno};
    char buf[4096];
    while (out.data.size() < kMaxControlFileBytes) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.err = errno;
        break;
      }
      if (n == 0) break;
      out.data.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
  }

  int write(const std::string& path, std::string_view value) override {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    ssize_t n;
    do {
      n = ::write(fd, value.data(), value.size());
    } while (n < 0 && errno == EINTR);
    const int err = n < 0 ? errno : 0;
    ::close(fd);
    return err;
  }

  int make_dir(const std::string& path) override {
    return ::mkdir(path.c_str(), 0755) == 0 ? 0 : errno;
  }

  int remove_dir(const std::string& path) override {
    return ::rmdir(path.c_str()) == 0 ? 0 : errno;
  }

  bool exists(const std::string& path) const override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  }

  OsList list_dirs(const std::string& path) const override {
    OsList out;
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return {{}, errno};
    while (dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      bool is_dir = entry->d_type == DT_DIR;
      if (entry->d_type == DT_LNK || entry->d_type == DT_UNKNOWN) {
        struct stat st;
        is_dir = ::stat((path + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
      }
      if (is_dir) out.names.push_back(name);
    }
    ::closedir(dir);
    std::sort(out.names.begin(), out.names.end());
    return out;
  }

  FsType fs_type(const std::string& path) const override {
    struct statfs st;
    if (::statfs(path.c_str(), &st) != 0) return FsType::kMissing;
    if (st.f_type == CGROUP2_SUPER_MAGIC) return FsType::kCgroup2;
    if (st.f_type == CGROUP_SUPER_MAGIC) return FsType::kCgroup1;
    return FsType::kOther;
  }

  std::string canonical(const std::string& path) const override {
    char resolved[PATH_MAX];
    return ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
  }

  int kill(pid_t pid, int signal) override { return ::kill(pid, signal) == 0 ? 0 : errno; }

  void sleep_for(std::chrono::milliseconds delay) override { std::this_thread::sleep_for(delay); }
};

}  // namespace

std::shared_ptr<CgroupOs> linux_cgroup_os() { return std::make_shared<LinuxCgroupOs>(); }

}  // namespace k3c::runtime
