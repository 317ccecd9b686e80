// The image store (see image_store.h).
#include "runtime/image_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <set>

#include "runtime/files.h"
#include "runtime/internal/image_index.h"
#include "runtime/internal/import.h"
#include "runtime/internal/snapshot.h"
#include "runtime/internal/staged_archive.h"
#include "runtime/internal/tree_at.h"

namespace k3c::runtime {
namespace {

using internal::Fd;
using internal::ImageIndex;

// Holds the store's cross-process lock for a scope.
class FileLock {
 public:
  static Result<FileLock> take(const std::string& path) {
    Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (fd.get() < 0) return errno_status("open " + path, errno);
    while (flock(fd.get(), LOCK_EX) != 0) {
      if (errno != EINTR) return errno_status("lock " + path, errno);
    }
    return FileLock(std::move(fd));
  }

 private:
  explicit FileLock(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;  // closing it releases the lock
};

}  // namespace

std::string chain_id(const std::vector<std::string>& diff_ids) {
  std::string chain;
  for (const std::string& diff_id : diff_ids) {
    chain = chain.empty() ? diff_id : sha256_of(chain + " " + diff_id);
  }
  return chain;
}

Result<std::unique_ptr<ImageStore>> ImageStore::open(const std::string& data_dir) {
  const std::string root = data_dir + "/agent/image-store";
  RETURN_IF_ERROR(make_dirs(root + "/snapshots"));
  ASSIGN_OR_RETURN(std::unique_ptr<BlobStore> blobs, BlobStore::open(root));
  return std::unique_ptr<ImageStore>(new ImageStore(root, std::move(blobs)));
}

Result<std::vector<ImageRecord>> ImageStore::import_file(const std::string& path) {
  std::lock_guard guard(mu_);
  ASSIGN_OR_RETURN(FileLock lock, FileLock::take(root_ + "/lock"));
  ASSIGN_OR_RETURN(ImageIndex index, ImageIndex::load(root_ + "/images.json"));
  ASSIGN_OR_RETURN(std::vector<ImageRecord> records, internal::import_tarball(path, *blobs_));
  for (const ImageRecord& record : records) index.add(record);
  RETURN_IF_ERROR(index.save());
  return records;
}

Result<ImageRecord> ImageStore::add_pulled(FetchedImage image) {
  // The fetched blobs become a staged "archive" of blobs/sha256/<hex> files with a plan naming
  // them, so that pulls and imports share one verifier and one committer.
  internal::StagedArchive staged;
  internal::PlannedImage plan;
  plan.references = image.references;
  auto stage = [&](FetchedBlob& blob, const std::string& what) -> Result<internal::PlannedBlob> {
    if (blob.writer == nullptr || blob.writer->digest().empty()) {
      return error(Code::kInternal, what + " was not fetched");
    }
    RETURN_IF_ERROR(check_digest(blob.digest, what));
    const std::string path = "blobs/sha256/" + std::string(digest_hex(blob.digest));
    const std::string content = blob.writer->digest();
    const uint64_t size = blob.writer->size();
    staged.files[path] = internal::StagedFile{std::move(blob.writer), content, size};
    return internal::PlannedBlob{path, blob.digest, blob.size, blob.media_type};
  };
  ASSIGN_OR_RETURN(plan.manifest, stage(image.manifest, "manifest"));
  ASSIGN_OR_RETURN(plan.config, stage(image.config, "config"));
  for (size_t i = 0; i < image.layers.size(); ++i) {
    ASSIGN_OR_RETURN(internal::PlannedBlob layer,
                     stage(image.layers[i], "layer " + std::to_string(i)));
    plan.layers.push_back(std::move(layer));
  }
  std::lock_guard guard(mu_);
  ASSIGN_OR_RETURN(FileLock lock, FileLock::take(root_ + "/lock"));
  ASSIGN_OR_RETURN(ImageIndex index, ImageIndex::load(root_ + "/images.json"));
  ASSIGN_OR_RETURN(std::vector<ImageRecord> records,
                   internal::commit_images(staged, {plan}, *blobs_, "image"));
  index.add(records.front());
  RETURN_IF_ERROR(index.save());
  return index.find(records.front().id);
}

Result<ImageRecord> ImageStore::add_references_if_present(
    std::string_view manifest_digest, const std::vector<std::string>& references) {
  std::lock_guard guard(mu_);
  ASSIGN_OR_RETURN(FileLock lock, FileLock::take(root_ + "/lock"));
  ASSIGN_OR_RETURN(ImageIndex index, ImageIndex::load(root_ + "/images.json"));
  for (const ImageRecord& image : index.images()) {
    if (image.manifest_digest != manifest_digest) continue;
    bool complete = blobs_->has(image.id) && blobs_->has(image.manifest_digest);
    for (const LayerInfo& layer : image.layers) complete = complete && blobs_->has(layer.digest);
    if (!complete) break;
    ImageRecord named = image;
    named.references = references;
    index.add(std::move(named));
    RETURN_IF_ERROR(index.save());
    return index.find(image.id);
  }
  return error(Code::kNotFound,
               "image with manifest " + std::string(manifest_digest) + " is not stored");
}

Result<std::vector<ImageRecord>> ImageStore::list() const {
  ASSIGN_OR_RETURN(ImageIndex index, ImageIndex::load(root_ + "/images.json"));
  return index.images();
}

Result<ImageRecord> ImageStore::find(std::string_view ref_or_id) const {
  ASSIGN_OR_RETURN(ImageIndex index, ImageIndex::load(root_ + "/images.json"));
  return index.find(ref_or_id);
}

Result<std::vector<std::string>> ImageStore::remove(std::string_view ref_or_id) {
  std::lock_guard guard(mu_);
  ASSIGN_OR_RETURN(FileLock lock, FileLock::take(root_ + "/lock"));
  ASSIGN_OR_RETURN(ImageIndex index, ImageIndex::load(root_ + "/images.json"));
  ASSIGN_OR_RETURN(ImageRecord image, index.find(ref_or_id));
  index.remove(image.id);
  RETURN_IF_ERROR(index.save());
  RETURN_IF_ERROR(collect_garbage_locked());
  if (image.references.empty()) return std::vector<std::string>{image.id};
  return image.references;
}

Status ImageStore::collect_garbage_locked() {
  ASSIGN_OR_RETURN(ImageIndex index, ImageIndex::load(root_ + "/images.json"));
  std::set<std::string> blobs_in_use;
  std::set<std::string> snapshots_in_use;
  for (const ImageRecord& image : index.images()) {
    blobs_in_use.insert(image.id);
    blobs_in_use.insert(image.manifest_digest);
    std::vector<std::string> diff_ids;
    for (const LayerInfo& layer : image.layers) {
      blobs_in_use.insert(layer.digest);
      diff_ids.push_back(layer.diff_id);
    }
    snapshots_in_use.insert(internal::snapshot_name(chain_id(diff_ids)));
  }
  ASSIGN_OR_RETURN(std::vector<std::string> stored, blobs_->list());
  for (const std::string& digest : stored) {
    if (!blobs_in_use.contains(digest)) RETURN_IF_ERROR(blobs_->remove(digest));
  }
  ASSIGN_OR_RETURN(std::vector<std::string> snapshots, list_dir(root_ + "/snapshots"));
  for (const std::string& name : snapshots) {
    if (!snapshots_in_use.contains(name)) {
      RETURN_IF_ERROR(remove_tree(root_ + "/snapshots/" + name));
    }
  }
  return Status::ok();
}

Result<std::string> ImageStore::unpack(std::string_view ref_or_id) {
  // Under the lock, so that a removal cannot collect the snapshot while it is being made.
  std::lock_guard guard(mu_);
  ASSIGN_OR_RETURN(FileLock lock, FileLock::take(root_ + "/lock"));
  ASSIGN_OR_RETURN(ImageRecord image, find(ref_or_id));
  return internal::ensure_snapshot(image, *blobs_, root_ + "/snapshots");
}

std::vector<AirgapResult> import_airgap_images(ImageStore& store, const std::string& images_dir) {
  std::vector<AirgapResult> results;
  Result<std::vector<std::string>> names = list_dir(images_dir);
  if (!names.is_ok()) {
    results.push_back({images_dir, names.status(), {}});
    return results;
  }
  for (const std::string& name : *names) {
    if (!name.ends_with(".tar") && !name.ends_with(".tar.gz") && !name.ends_with(".tar.zst")) {
      continue;
    }
    AirgapResult result{images_dir + "/" + name, Status::ok(), {}};
    Result<std::vector<ImageRecord>> imported = store.import_file(result.file);
    if (imported.is_ok()) {
      for (const ImageRecord& image : *imported) {
        result.references.insert(result.references.end(), image.references.begin(),
                                 image.references.end());
      }
    } else {
      result.status = imported.status();
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace k3c::runtime
