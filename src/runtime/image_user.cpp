// Resolving an image user (see image_user.h).
#include "runtime/image_user.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <optional>
#include <sstream>

namespace k3c::runtime {
namespace {

constexpr size_t kMaxFile = 4 << 20;

// The file at `path` inside `rootfs`, resolved as if `rootfs` were "/"; "" when missing.
std::string read_in_root(const std::string& rootfs, const char* path) {
  const int root = open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) return "";
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  const int fd = static_cast<int>(syscall(SYS_openat2, root, path, &how, sizeof how));
  close(root);
  if (fd < 0) return "";
  std::string bytes;
  char buf[8192];
  ssize_t n;
  while (bytes.size() < kMaxFile && (n = read(fd, buf, sizeof buf)) > 0) {
    bytes.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return bytes;
}

std::optional<uint32_t> number(const std::string& s) {
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// The colon-separated fields of each line that is not a comment.
std::vector<std::vector<std::string>> entries(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
      const size_t colon = line.find(':', start);
      fields.push_back(line.substr(start, colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    out.push_back(std::move(fields));
  }
  return out;
}

}  // namespace

Result<ImageUser> resolve_image_user(const std::string& rootfs, const std::string& user) {
  const size_t colon = user.find(':');
  const std::string user_part = user.substr(0, colon);
  const std::string group_part = colon == std::string::npos ? "" : user.substr(colon + 1);
  ImageUser result;
  std::string name;  // the user's name, when the passwd file has it
  const auto passwd = entries(read_in_root(rootfs, "/etc/passwd"));
  const std::optional<uint32_t> uid = number(user_part);
  bool found = false;
  for (const auto& e : passwd) {
    if (e.size() < 4) continue;
    const std::optional<uint32_t> entry_uid = number(e[2]);
    if (!entry_uid) continue;
    if (uid ? *entry_uid == *uid : e[0] == user_part) {
      name = e[0];
      result.uid = *entry_uid;
      result.gid = number(e[3]).value_or(0);
      found = true;
      break;
    }
  }
  if (!found) {
    if (!user_part.empty() && !uid) {
      return error(Code::kInvalid,
                   "unable to find user " + user_part + ": no matching entries in passwd file");
    }
    result.uid = uid.value_or(0);
    result.gid = 0;
  }
  const auto group_file = entries(read_in_root(rootfs, "/etc/group"));
  if (!group_part.empty()) {
    if (const auto gid = number(group_part)) {
      result.gid = *gid;
    } else {
      const auto it = std::find_if(group_file.begin(), group_file.end(), [&](const auto& e) {
        return e.size() >= 3 && e[0] == group_part && number(e[2]);
      });
      if (it == group_file.end()) {
        return error(Code::kInvalid,
                     "unable to find group " + group_part + ": no matching entries in group file");
      }
      result.gid = *number((*it)[2]);
    }
  }
  result.groups.push_back(result.gid);
  if (!name.empty()) {
    for (const auto& e : group_file) {
      if (e.size() < 4 || !number(e[2])) continue;
      std::istringstream members(e[3]);
      for (std::string member; std::getline(members, member, ',');) {
        const uint32_t gid = *number(e[2]);
        if (member == name &&
            std::find(result.groups.begin(), result.groups.end(), gid) == result.groups.end()) {
          result.groups.push_back(gid);
        }
      }
    }
  }
  return result;
}

}  // namespace k3c::runtime
