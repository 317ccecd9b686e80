// WAL checkpoints off the commit path. SQLite's automatic checkpoint runs inside a commit,
// so the writers of that batch wait for two extra fsyncs; here the committer only reports
// the WAL's size (SQLite's wal hook) and this thread copies the WAL back into the database
// on its own connection. PASSIVE checkpoints never block writers; past a hard limit a
// RESTART one makes the next writer wait until the WAL can start over, and past four times
// that (this thread starved of CPU) the committer checkpoints inline, so the WAL stays
// bounded whatever the load.
//
// Thread-safety: notify() from the committer thread (inside the wal hook); stop() from the
// owner. mu_ guards pending_frames_ and stopping_.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "store/internal/sqlite.h"

namespace k3c::store::internal {

class Checkpointer {
 public:
  // Checkpoints once the WAL holds more than `threshold_frames` pages; forces one (FULL)
  // past `hard_limit_frames`.
  Checkpointer(std::unique_ptr<Db> db, int threshold_frames, int hard_limit_frames);
  ~Checkpointer();

  // Called after each commit with the number of frames now in the WAL.
  void notify(int wal_frames);
  // Stops the thread, then checkpoints everything and truncates the WAL (TRUNCATE mode) so
  // a closed store is one file. Idempotent.
  void stop();

  // The hook SQLite calls after each commit; `arg` is the Checkpointer.
  static int wal_hook(void* arg, sqlite3* db, const char* name, int frames);

 private:
  void loop();

  std::unique_ptr<Db> db_;
  const int threshold_;
  const int hard_limit_;
  const int backpressure_;  // past this the committer checkpoints itself (in the hook)
  std::mutex mu_;
  std::condition_variable cv_;
  int pending_frames_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace k3c::store::internal
