// The runtime's image store: the public interface of image handling in src/runtime.
//
// Layout under <data-dir>/agent/image-store (doc/runtime.md has the details):
//   blobs/sha256/<hex>   content-addressed blobs (manifests, configs, layers), verified
//   images.json          every image's record (references, config, layers), atomic rewrites
//   snapshots/<hex>      one flattened root filesystem per layer chain (chain id)
//   tmp/                 staging for imports (a crash may leave files here; they are never used)
//   lock                 flock(2): one changer at a time across processes (CLI and server)
//
// Thread-safe: changes take the lock (a mutex within the process and the flock across
// processes) and re-read images.json under it, so `k3c images import` can run while a server
// uses the same data dir.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/blob_store.h"
#include "runtime/image_record.h"

namespace k3c::runtime {

// One blob a puller fetched for ImageStore::add_pulled: written through blob_writer() and
// finished (hashed and synced), not committed; `digest`, `size` and `media_type` are what the
// manifest's descriptor says the blob must be.
struct FetchedBlob {
  std::unique_ptr<BlobWriter> writer;
  std::string digest;
  int64_t size = -1;
  std::string media_type;
};

// An image a puller fetched: the platform's image manifest, its config and its layers.
struct FetchedImage {
  std::vector<std::string> references;  // normalised
  FetchedBlob manifest;
  FetchedBlob config;
  std::vector<FetchedBlob> layers;
};

class ImageStore {
 public:
  // Creates the layout when missing. `data_dir` is k3c's --data-dir.
  static Result<std::unique_ptr<ImageStore>> open(const std::string& data_dir);

  // Imports a docker-archive or OCI layout tarball (plain, gzip or zstd). All or nothing:
  // on error, nothing new is stored or listed.
  Result<std::vector<ImageRecord>> import_file(const std::string& path);

  // A writer for a blob being fetched (into the store's tmp/, removed unless committed).
  Result<std::unique_ptr<BlobWriter>> blob_writer() const { return blobs_->writer(); }
  // Registers an image fetched from a registry, through the same verification and commit as
  // imports (digests, sizes, config, each layer's diff_id): all or nothing.
  Result<ImageRecord> add_pulled(FetchedImage image);
  // A re-pull's shortcut: when an image with this manifest is stored with all its blobs, gives
  // it `references` (moved from any other image, as add_pulled would) and returns it; kNotFound
  // when it is not (fully) stored, so the puller fetches the blobs.
  Result<ImageRecord> add_references_if_present(std::string_view manifest_digest,
                                                const std::vector<std::string>& references);

  Result<std::vector<ImageRecord>> list() const;
  // By reference (normalised: "busybox" finds docker.io/library/busybox:latest), by id or
  // by an id prefix.
  Result<ImageRecord> find(std::string_view ref_or_id) const;
  // Removes the image `ref_or_id` names, with all its references (as `crictl rmi` does), then
  // the blobs and snapshots no remaining image uses. Returns the removed references.
  Result<std::vector<std::string>> remove(std::string_view ref_or_id);

  // The root filesystem of the image (flattened, shared, read-only by convention: it is an
  // overlay lower dir), unpacked on first use. Layers are re-verified while unpacking.
  Result<std::string> unpack(std::string_view ref_or_id);

  const std::string& root() const { return root_; }

 private:
  ImageStore(std::string root, std::unique_ptr<BlobStore> blobs)
      : root_(std::move(root)), blobs_(std::move(blobs)) {}
  Status collect_garbage_locked();

  std::string root_;
  std::unique_ptr<BlobStore> blobs_;
  std::mutex mu_;  // serialises changes within this process (the flock does across processes)
};

// The chain id of a layer stack (OCI image spec): ChainID(L0) = DiffID(L0),
// ChainID(Ln) = sha256(ChainID(Ln-1) + " " + DiffID(Ln)).
std::string chain_id(const std::vector<std::string>& diff_ids);

struct AirgapResult {
  std::string file;
  Status status;
  std::vector<std::string> references;  // of the images imported from it
};

// Imports every *.tar, *.tar.gz and *.tar.zst in `images_dir` (k3s's airgap directory,
// <data-dir>/agent/images), in name order. One bad file does not stop the others: each file
// gets its own result. The kubelet/runtime role calls this at start.
std::vector<AirgapResult> import_airgap_images(ImageStore& store, const std::string& images_dir);

}  // namespace k3c::runtime
