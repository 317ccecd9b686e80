// Creating the data dir layout (see data_dir.h).
#include "cli/data_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace k3c::cli {
namespace {

// mkdir -p with `mode` for the directories it creates (subject to the umask).
Status make_dirs(const std::string& path, mode_t mode) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = slash == std::string::npos ? path : path.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) {
      return error(Code::kInternal, "cannot create " + prefix + ": " + std::strerror(errno));
    }
    struct stat info;
    if (!prefix.empty() && (stat(prefix.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))) {
      return error(Code::kInternal, "cannot create " + prefix + ": not a directory");
    }
    if (slash == std::string::npos) return Status::ok();
  }
}

}  // namespace

Status prepare_data_dir(const std::string& data_dir) {
  const std::string server = data_dir + "/server";
  RETURN_IF_ERROR(make_dirs(data_dir, 0755));
  RETURN_IF_ERROR(make_dirs(server, 0700));
  // The server dir holds the database and keys: only root (or the owner) may look in.
  if (chmod(server.c_str(), 0700) != 0) {
    return error(Code::kInternal, "cannot chmod 0700 " + server + ": " + std::strerror(errno));
  }
  for (const char* sub : {"/db", "/tls", "/manifests"}) {
    RETURN_IF_ERROR(make_dirs(server + sub, 0700));
  }
  RETURN_IF_ERROR(make_dirs(data_dir + "/agent/images", 0755));
  return Status::ok();
}

}  // namespace k3c::cli
