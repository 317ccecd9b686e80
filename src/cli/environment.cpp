// The real process environment and file reading (see environment.h).
#include "cli/environment.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace k3c::cli {

std::string Environment::get(std::string_view name) const {
  auto it = variables.find(name);
  return it == variables.end() ? std::string() : it->second;
}

Environment Environment::current() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    env.variables.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  env.is_root = geteuid() == 0;
  return env;
}

Result<std::string> LocalFileReader::read(const std::string& path) const {
  // Config files are small; a bigger one is a mistake (or not a config file at all).
  constexpr size_t kLimit = 1 << 20;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return error(Code::kNotFound, path + ": no such file");
    return error(Code::kInvalid, path + ": cannot open: " + std::strerror(err));
  }
  std::string contents;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return error(Code::kInvalid, path + ": cannot read: " + std::strerror(err));
    }
    if (n == 0) break;
    contents.append(buf, static_cast<size_t>(n));
    if (contents.size() > kLimit) {
      close(fd);
      return error(Code::kInvalid, path + ": larger than 1 MiB; not a config file?");
    }
  }
  close(fd);
  return contents;
}

}  // namespace k3c::cli
