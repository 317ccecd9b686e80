// Group commit (see committer.h).
#include "store/internal/committer.h"
#include "core/thread_set.h"

namespace k3c::store::internal {
namespace {

Status closed_error() { return error(Code::kServiceUnavailable, "datastore is closed"); }

}  // namespace

Committer::Committer(std::unique_ptr<Db> db, LogTable table, size_t max_batch, OnCommit on_commit)
    : db_(std::move(db)),
      table_(std::move(table)),
      max_batch_(max_batch > 0 ? max_batch : 1),
      on_commit_(std::move(on_commit)),
      thread_([this] {
        name_this_thread("store-commit");
        loop();
      }) {}

Committer::~Committer() { stop(); }

Result<KeyValue> Committer::write(WriteRequest request) {
  std::future<Result<KeyValue>> result;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return closed_error();
    PendingWrite& p =
        std::get<PendingWrite>(queue_.emplace_back(PendingWrite{std::move(request), {}}));
    result = p.done.get_future();
  }
  cv_.notify_one();
  return result.get();
}

Status Committer::run_job(Job job) {
  std::future<Status> result;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return closed_error();
    PendingJob& p = std::get<PendingJob>(queue_.emplace_back(PendingJob{std::move(job), {}}));
    result = p.done.get_future();
  }
  cv_.notify_one();
  return result.get();
}

void Committer::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Committer::loop() {
  while (true) {
    std::vector<PendingWrite> batch;
    std::optional<PendingJob> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) {
        // Answer whatever is still waiting; nothing of it was started.
        for (auto& p : queue_) {
          std::visit([](auto& pending) { pending.done.set_value(closed_error()); }, p);
        }
        queue_.clear();
        return;
      }
      if (std::holds_alternative<PendingJob>(queue_.front())) {
        job = std::move(std::get<PendingJob>(queue_.front()));
        queue_.pop_front();
      } else {
        while (!queue_.empty() && batch.size() < max_batch_ &&
               std::holds_alternative<PendingWrite>(queue_.front())) {
          batch.push_back(std::move(std::get<PendingWrite>(queue_.front())));
          queue_.pop_front();
        }
      }
    }
    if (job) {
      job->done.set_value(job->job(*db_, table_));
    } else {
      commit_batch(batch);
    }
  }
}

void Committer::commit_batch(std::vector<PendingWrite>& batch) {
  std::vector<Result<EventPtr>> results;
  results.reserve(batch.size());
  Status failure;
  {
    auto tx = Transaction::begin(*db_);
    if (!tx.is_ok()) {
      failure = tx.status();
    } else {
      for (auto& p : batch) {
        auto r = apply(p.request);
        // Logical outcomes (NotFound, Conflict, ...) belong to one request; a database
        // error (Internal, StorageFull, Corrupt, ...) sinks the whole transaction.
        Code c = r.status().code();
        if (c == Code::kInternal || c == Code::kStorageFull || c == Code::kCorrupt ||
            c == Code::kServiceUnavailable) {
          failure = r.status();
          break;
        }
        results.push_back(std::move(r));
      }
      if (failure.is_ok()) failure = tx->commit();
      // On failure the Transaction's destructor rolls back.
    }
  }
  if (!failure.is_ok()) {
    for (auto& p : batch) p.done.set_value(failure);
    return;
  }
  std::vector<EventPtr> events;
  for (auto& r : results) {
    if (r.is_ok()) events.push_back(*r);
  }
  if (!events.empty()) on_commit_(events);
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!results[i].is_ok()) {
      batch[i].done.set_value(results[i].status());
      continue;
    }
    const Event& e = **results[i];
    // A delete answers with the value it removed, stamped with the delete's revision.
    batch[i].done.set_value(e.kv);
  }
}

Result<EventPtr> Committer::apply(const WriteRequest& req) {
  ASSIGN_OR_RETURN(std::optional<Row> latest, table_.latest(req.key, 0));
  const bool live = latest && !latest->deleted;
  auto event = std::make_shared<Event>();
  Row row;
  row.name = req.key;
  row.lease = req.lease;
  row.prev_revision = latest ? latest->id : 0;
  switch (req.kind) {
    case WriteRequest::Kind::kCreate:
      if (live) {
        return error(Code::kAlreadyExists, "key " + req.key + " already exists", latest->id);
      }
      row.created = true;
      row.value = req.value;
      event->type = Event::Type::kCreate;
      break;
    case WriteRequest::Kind::kUpdate:
    case WriteRequest::Kind::kDelete:
      if (!live) return error(Code::kNotFound, "key " + req.key + " not found");
      if (req.expected_revision != 0 && req.expected_revision != latest->id) {
        return error(Code::kConflict,
                     "key " + req.key + ": expected revision " +
                         std::to_string(req.expected_revision) + ", current revision " +
                         std::to_string(latest->id),
                     latest->id);
      }
      row.create_revision = latest->create_revision;
      if (req.kind == WriteRequest::Kind::kUpdate) {
        row.value = req.value;
        event->type = Event::Type::kUpdate;
      } else {
        row.deleted = true;
        row.lease = 0;
        event->type = Event::Type::kDelete;
      }
      event->prev = to_kv(*latest);
      break;
  }
  ASSIGN_OR_RETURN(row.id, table_.append(row));
  if (req.kind == WriteRequest::Kind::kCreate) row.create_revision = row.id;
  event->kv = to_kv(row);
  if (row.deleted) event->kv.value = latest->value;
  return EventPtr(std::move(event));
}

}  // namespace k3c::store::internal
