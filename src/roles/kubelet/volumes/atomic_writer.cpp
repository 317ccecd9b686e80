// The atomic writer (see atomic_writer.h).
#include "roles/kubelet/volumes/atomic_writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace k3c::kubelet::volumes {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDataLink = "..data";

Status io_error(const std::string& what, const std::error_code& ec) {
  return error(Code::kInternal, what + ": " + ec.message());
}

// What the directory the ..data link points at holds now.
Payload current_payload(const fs::path& data) {
  Payload out;
  std::error_code ec;
  if (!fs::is_directory(data, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(data, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    struct stat st {};
    stat(it->path().c_str(), &st);
    out[fs::relative(it->path(), data).string()] = {std::move(text),
                                                    static_cast<int>(st.st_mode & 07777)};
  }
  return out;
}

std::set<std::string> top_level_names(const Payload& payload) {
  std::set<std::string> out;
  for (const auto& [path, _] : payload) out.insert(fs::path(path).begin()->string());
  return out;
}

}  // namespace

Status validate_payload_path(const std::string& path) {
  const fs::path p(path);
  if (path.empty() || p.is_absolute()) {
    return error(Code::kInvalid, "invalid path \"" + path + "\": must be relative");
  }
  if (path.rfind("..", 0) == 0) {
    return error(Code::kInvalid, "invalid path \"" + path + "\": must not start with '..'");
  }
  for (const auto& part : p) {
    if (part == "..") {
      return error(Code::kInvalid, "invalid path \"" + path + "\": must not contain '..'");
    }
  }
  return Status::ok();
}

Result<bool> write_atomic(const std::string& dir, const Payload& payload,
                          const std::string& stamp) {
  for (const auto& [path, _] : payload) RETURN_IF_ERROR(validate_payload_path(path));
  std::error_code ec;
  const fs::path root(dir);
  fs::create_directories(root, ec);
  if (ec) return io_error("creating " + dir, ec);
  const fs::path link = root / kDataLink;
  fs::path old_target;
  if (fs::is_symlink(link, ec)) old_target = fs::read_symlink(link, ec);
  if (!old_target.empty() && current_payload(root / old_target) == payload) return false;

  // The new generation, complete before anyone can see it.
  const std::string fresh_name = ".." + stamp;
  const fs::path fresh = root / fresh_name;
  fs::remove_all(fresh, ec);
  fs::create_directory(fresh, ec);
  if (ec) return io_error("creating " + fresh.string(), ec);
  chmod(fresh.c_str(), 0755);
  for (const auto& [path, file] : payload) {
    const fs::path target = fresh / path;
    fs::create_directories(target.parent_path(), ec);
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << file.data;
    out.close();
    if (!out) return error(Code::kInternal, "writing " + target.string());
    chmod(target.c_str(), static_cast<mode_t>(file.mode));
  }
  // The swap: a temporary symlink renamed over ..data (rename is atomic).
  const fs::path tmp = root / "..data_tmp";
  fs::remove(tmp, ec);
  fs::create_symlink(fresh_name, tmp, ec);
  if (ec) return io_error("linking " + tmp.string(), ec);
  if (rename(tmp.c_str(), link.c_str()) != 0) {
    return error(Code::kInternal, "renaming " + tmp.string() + ": " + strerror(errno));
  }
  // User-visible names: add the new, drop the ones no longer in the payload.
  const std::set<std::string> names = top_level_names(payload);
  for (const auto& name : names) {
    const fs::path visible = root / name;
    if (!fs::is_symlink(visible, ec)) {
      fs::create_symlink(fs::path(kDataLink) / name, visible, ec);
      if (ec) return io_error("linking " + visible.string(), ec);
    }
  }
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("..", 0) == 0) {
      if (name != kDataLink && name != fresh_name) fs::remove_all(entry.path(), ec);
      continue;
    }
    if (!names.count(name)) fs::remove_all(entry.path(), ec);
  }
  return true;
}

}  // namespace k3c::kubelet::volumes
