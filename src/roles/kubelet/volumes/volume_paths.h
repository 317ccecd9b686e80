// Where a pod's volumes live on the node and the checks around them, as upstream's kubelet:
// <root>/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>; a subPath stays inside its
// volume (no "..", no absolute path, no symlink leading out); a hostPath is checked against
// its declared type (DirectoryOrCreate and FileOrCreate create it).
#pragma once

#include <string>

#include "core/status.h"

namespace k3c::kubelet::volumes {

std::string pod_dir(const std::string& root, const std::string& uid);
// "kubernetes.io~empty-dir" for {"emptyDir": ...}; "" for a volume kind with no directory
// of its own (hostPath, persistentVolumeClaim) or one not known.
std::string plugin_dir_name(const std::string& kind);
std::string volume_dir(const std::string& root, const std::string& uid, const std::string& kind,
                       const std::string& name);

// The host path of `sub_path` inside `base` (created as a directory when missing, as
// upstream's kubelet does); kInvalid when it would leave `base`.
Result<std::string> resolve_sub_path(const std::string& base, const std::string& sub_path);

// Upstream's hostPath type check; "" checks nothing. The *OrCreate types create what is
// missing (a directory 0755, an empty file 0644, with missing parents).
Status check_host_path_type(const std::string& path, const std::string& type);

}  // namespace k3c::kubelet::volumes
