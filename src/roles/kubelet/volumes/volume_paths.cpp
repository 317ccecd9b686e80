// Volume paths and checks (see volume_paths.h).
#include "roles/kubelet/volumes/volume_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>

namespace k3c::kubelet::volumes {

namespace fs = std::filesystem;

std::string pod_dir(const std::string& root, const std::string& uid) {
  return root + "/pods/" + uid;
}

std::string plugin_dir_name(const std::string& kind) {
  static const std::map<std::string, std::string> kPlugins = {{"emptyDir", "empty-dir"},
                                                              {"configMap", "configmap"},
                                                              {"secret", "secret"},
                                                              {"downwardAPI", "downward-api"},
                                                              {"projected", "projected"}};
  auto it = kPlugins.find(kind);
  return it == kPlugins.end() ? "" : "kubernetes.io~" + it->second;
}

std::string volume_dir(const std::string& root, const std::string& uid, const std::string& kind,
                       const std::string& name) {
  return pod_dir(root, uid) + "/volumes/" + plugin_dir_name(kind) + "/" + name;
}

namespace {

bool within(const fs::path& base, const fs::path& p) {
  auto b = base.begin(), e = base.end();
  auto i = p.begin();
  for (; b != e; ++b, ++i) {
    if (i == p.end() || *i != *b) return false;
  }
  return true;
}

}  // namespace

Result<std::string> resolve_sub_path(const std::string& base, const std::string& sub_path) {
  if (sub_path.empty()) return base;
  const fs::path sub(sub_path);
  if (sub.is_absolute()) {
    return error(Code::kInvalid, "subPath \"" + sub_path + "\" must be a relative path");
  }
  for (const auto& part : sub) {
    if (part == "..") {
      return error(Code::kInvalid, "subPath \"" + sub_path + "\" must not contain '..'");
    }
  }
  std::error_code ec;
  const fs::path real_base = fs::canonical(base, ec);
  if (ec) return error(Code::kInternal, "volume path " + base + ": " + ec.message());
  // Symlinks are followed as the kernel would follow them, then the result must still be
  // inside the volume; a missing rest is created as directories only after that check.
  const fs::path resolved = fs::weakly_canonical(real_base / sub, ec);
  if (ec || !within(real_base, resolved)) {
    return error(Code::kInvalid, "subpath \"" + (real_base / sub).string() +
                                     "\" not within volume path \"" + real_base.string() + "\"");
  }
  if (!fs::exists(resolved, ec)) {
    fs::create_directories(resolved, ec);
    if (ec)
      return error(Code::kInternal, "creating subPath " + resolved.string() + ": " + ec.message());
  }
  return resolved.string();
}

Status check_host_path_type(const std::string& path, const std::string& type) {
  auto failed = [&](const std::string& what) {
    return error(Code::kInvalid, "hostPath type check failed: " + path + " is not " + what);
  };
  struct stat st {};
  const bool exists = stat(path.c_str(), &st) == 0;
  if (type.empty()) return Status::ok();
  if (type == "DirectoryOrCreate") {
    if (!exists) {
      std::error_code ec;
      fs::create_directories(path, ec);
      if (ec) return error(Code::kInternal, "creating " + path + ": " + ec.message());
      chmod(path.c_str(), 0755);
      return Status::ok();
    }
    return S_ISDIR(st.st_mode) ? Status::ok() : failed("a directory");
  }
  if (type == "FileOrCreate") {
    if (!exists) {
      std::error_code ec;
      fs::create_directories(fs::path(path).parent_path(), ec);
      int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
      if (fd < 0) return error(Code::kInternal, "creating " + path + ": " + strerror(errno));
      close(fd);
      return Status::ok();
    }
    return S_ISDIR(st.st_mode) ? failed("a file") : Status::ok();
  }
  if (type == "Directory") {
    if (!exists)
      return error(Code::kInvalid, "hostPath type check failed: " + path + " is not a directory");
    return S_ISDIR(st.st_mode) ? Status::ok() : failed("a directory");
  }
  if (type == "File") {
    if (!exists)
      return error(Code::kInvalid, "hostPath type check failed: " + path + " is not a file");
    return S_ISREG(st.st_mode) ? Status::ok() : failed("a file");
  }
  if (type == "Socket")
    return exists && S_ISSOCK(st.st_mode) ? Status::ok() : failed("a socket file");
  if (type == "CharDevice") {
    return exists && S_ISCHR(st.st_mode) ? Status::ok() : failed("a character device");
  }
  if (type == "BlockDevice") {
    return exists && S_ISBLK(st.st_mode) ? Status::ok() : failed("a block device");
  }
  return error(Code::kInvalid, "hostPath type check failed: unknown type \"" + type + "\"");
}

}  // namespace k3c::kubelet::volumes
