// The runtime's records (records.h) kept in memory once read or written, so that listing and
// status calls do not re-read and re-parse every sandbox.json and container.json: the kubelet
// looks at the runtime several times per pod sync, and in a burst of pod starts that parsing
// was most of k3c's user-space CPU (doc/benchmarks.md, pod start).
//
// Sound because one LinuxRuntime owns its state root: every record it reads later was written
// through it (or existed when it opened). Whoever removes a record's directory calls forget()
// first. Thread-safe (one mutex); bounded by the records on disk.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "runtime/linux/records.h"

namespace k3c::runtime {

class RecordCache {
 public:
  // The record at `path`: the kept copy, else the file (kNotFound, kCorrupt as load_*).
  Result<SandboxRecord> sandbox(const std::string& path);
  Result<ContainerRecord> container(const std::string& path);
  // save_record, then keeps the copy (dropped on failure: the file is what it was, or gone).
  Status save(const std::string& path, const SandboxRecord& record);
  Status save(const std::string& path, const ContainerRecord& record);
  // Drops what is kept for `path` (before its directory is removed).
  void forget(const std::string& path);

 private:
  std::mutex mu_;  // guards sandboxes_, containers_
  std::map<std::string, SandboxRecord> sandboxes_;
  std::map<std::string, ContainerRecord> containers_;
};

}  // namespace k3c::runtime
