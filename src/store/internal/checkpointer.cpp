// WAL checkpoints on their own thread (see checkpointer.h).
#include "store/internal/checkpointer.h"
#include "core/thread_set.h"

namespace k3c::store::internal {

Checkpointer::Checkpointer(std::unique_ptr<Db> db, int threshold_frames, int hard_limit_frames)
    : db_(std::move(db)),
      threshold_(threshold_frames),
      hard_limit_(hard_limit_frames),
      backpressure_(hard_limit_frames * 4),
      thread_([this] {
        name_this_thread("store-checkpoint");
        loop();
      }) {}

Checkpointer::~Checkpointer() { stop(); }

int Checkpointer::wal_hook(void* arg, sqlite3* writer, const char* name, int frames) {
  auto* self = static_cast<Checkpointer*>(arg);
  if (frames > self->backpressure_) {
    // The checkpointer thread has fallen far behind (starved of CPU, say): the committer
    // checkpoints itself, as SQLite's automatic checkpoint would, so the WAL stays bounded
    // and writers slow down instead of the file growing.
    (void)sqlite3_wal_checkpoint_v2(writer, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    return SQLITE_OK;
  }
  self->notify(frames);
  return SQLITE_OK;
}

void Checkpointer::notify(int wal_frames) {
  if (wal_frames <= threshold_) return;
  {
    std::lock_guard lock(mu_);
    pending_frames_ = wal_frames;
  }
  cv_.notify_one();
}

void Checkpointer::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  // Best effort: a store that could not checkpoint at close replays its WAL at next open.
  (void)sqlite3_wal_checkpoint_v2(db_->handle(), "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr,
                                  nullptr);
}

void Checkpointer::loop() {
  while (true) {
    int frames;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || pending_frames_ > 0; });
      if (stopping_) return;
      frames = pending_frames_;
      pending_frames_ = 0;
    }
    int mode = frames > hard_limit_ ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_PASSIVE;
    // Errors (busy, disk full) are left for the next notification to retry; the data is
    // safe in the WAL meanwhile.
    (void)sqlite3_wal_checkpoint_v2(db_->handle(), "main", mode, nullptr, nullptr);
  }
}

}  // namespace k3c::store::internal
