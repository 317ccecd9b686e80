// The /var/log/containers symlinks (see container_log_links.h).
#include "roles/kubelet/logs/container_log_links.h"

#include <filesystem>
#include <set>

#include "core/log.h"
#include "roles/kubelet/pods/labels.h"

namespace k3c::kubelet {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxFileName = 255;

std::string label(const runtime::ContainerStatus& c, const char* key) {
  auto it = c.labels.find(key);
  return it == c.labels.end() ? "" : it->second;
}

std::string without_trailing_slash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

ContainerLogLinks::ContainerLogLinks(std::string pod_logs_root)
    : root_(without_trailing_slash(pod_logs_root) + "/"),
      dir_(
          (fs::path(without_trailing_slash(pod_logs_root)).parent_path() / "containers").string()) {
}

void ContainerLogLinks::sync(const std::vector<runtime::ContainerStatus>& containers) {
  std::set<std::string> listed;
  for (const runtime::ContainerStatus& c : containers) {
    listed.insert(c.id);
    if (links_.count(c.id) || c.log_path.rfind(root_, 0) != 0) continue;
    std::error_code ec;
    if (!fs::exists(c.log_path, ec)) continue;  // not written yet (or a runtime that writes none)
    std::string name = label(c, labels::kPodName) + "_" + label(c, labels::kPodNamespace) + "_" +
                       c.name + "-" + c.id;
    if (name.size() > kMaxFileName - 4) name.resize(kMaxFileName - 4);
    const std::string link = dir_ + "/" + name + ".log";
    fs::create_directories(dir_, ec);
    fs::remove(link, ec);  // ours by its name (the container id): made again after a restart
    fs::create_symlink(c.log_path, link, ec);
    if (ec) {
      log::for_role("kubelet")->warn("linking {} to {}: {}", link, c.log_path, ec.message());
      continue;
    }
    links_[c.id] = link;
  }
  for (auto it = links_.begin(); it != links_.end();) {
    if (listed.count(it->first)) {
      ++it;
      continue;
    }
    std::error_code ec;
    fs::remove(it->second, ec);
    it = links_.erase(it);
  }
}

}  // namespace k3c::kubelet
