// Snapshot creation (see snapshot.h).
#include "runtime/internal/snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ids.h"
#include "runtime/digest.h"
#include "runtime/files.h"
#include "runtime/image_store.h"
#include "runtime/internal/layer_unpack.h"
#include "runtime/internal/tree_at.h"

namespace k3c::runtime::internal {

std::string snapshot_name(const std::string& chain) {
  return chain.empty() ? "empty" : std::string(digest_hex(chain));
}

Result<std::string> ensure_snapshot(const ImageRecord& image, const BlobStore& blobs,
                                    const std::string& snapshots_dir) {
  std::vector<std::string> diff_ids;
  for (const LayerInfo& layer : image.layers) diff_ids.push_back(layer.diff_id);
  const std::string target = snapshots_dir + "/" + snapshot_name(chain_id(diff_ids));
  struct stat info;
  if (stat(target.c_str(), &info) == 0) return target;

  const std::string temp = snapshots_dir + "/.tmp-" + new_uuid();
  if (mkdir(temp.c_str(), 0755) != 0) return errno_status("mkdir " + temp, errno);
  auto discard = [&](Status status) {
    (void)remove_tree(temp);  // best effort; a leftover .tmp- dir is never used
    return status;
  };
  Fd root(open(temp.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return discard(errno_status("open " + temp, errno));
  for (const LayerInfo& layer : image.layers) {
    if (!blobs.has(layer.digest)) {
      return discard(error(Code::kNotFound, "layer " + layer.digest + " of image " + image.id +
                                                " is not in the blob store"));
    }
    Result<UnpackStats> applied =
        apply_layer(root.get(), blobs.path_of(layer.digest), layer.digest);
    if (!applied.is_ok()) return discard(applied.status());
  }
  // The tree must be on disk before its name says it is complete.
  if (syncfs(root.get()) != 0) return discard(errno_status("syncfs " + temp, errno));
  if (rename(temp.c_str(), target.c_str()) != 0) {
    if (errno == EEXIST || errno == ENOTEMPTY) {  // made meanwhile by another process
      (void)discard(Status::ok());
      return target;
    }
    return discard(errno_status("rename " + temp, errno));
  }
  RETURN_IF_ERROR(sync_dir(snapshots_dir));
  return target;
}

}  // namespace k3c::runtime::internal
