// Watch events as an HTTP body (see watch_stream.h).
#include "roles/apiserver/watch_stream.h"

#include <nlohmann/json.hpp>

#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/table.h"

namespace k3c::apiserver {
namespace {

constexpr auto kBookmarkEvery = std::chrono::seconds(60);

const char* type_name(EventType t) {
  switch (t) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "ERROR";
}

}  // namespace

WatchStream::WatchStream(std::unique_ptr<CacheWatcher> watcher, WatchCache& cache,
                         const Clock& clock, WatchStreamOptions options)
    : watcher_(std::move(watcher)),
      cache_(cache),
      clock_(clock),
      options_(std::move(options)),
      next_bookmark_(clock.now() + kBookmarkEvery) {}

std::string WatchStream::event_line(const char* type, const std::string& object_json) {
  std::string line;
  line.reserve(object_json.size() + 32);
  line += R"({"type":")";
  line += type;
  line += R"(","object":)";
  line += object_json;
  line += "}\n";
  return line;
}

std::string WatchStream::bookmark(int64_t revision, bool initial_end) const {
  nlohmann::json meta = {{"resourceVersion", std::to_string(revision)}};
  if (initial_end) meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  nlohmann::json o = {
      {"kind", options_.kind}, {"apiVersion", options_.api_version}, {"metadata", meta}};
  return event_line("BOOKMARK", o.dump());
}

std::string WatchStream::object_of(const CachedObject& o) {
  if (!options_.table) return o.json;  // the shared cached bytes: plain watches pay nothing
  // Upstream's watch encoder sends the column definitions with the first event only.
  TableOptions table{options_.include, columns_sent_};
  columns_sent_ = true;
  return make_table(options_.group, options_.kind, {&o.json}, std::to_string(o.revision), "", table,
                    clock_.wall_now())
      .dump();
}

void WatchStream::set_wake(std::function<void()> wake) { watcher_->set_wake(std::move(wake)); }

http::BodyStream::Chunk WatchStream::poll() {
  Chunk out;
  if (finished_) {
    out.ended = true;
    return out;
  }
  auto batch = watcher_->poll();
  for (const auto& e : batch.events) {
    out.data += event_line(type_name(e.type), object_of(*e.object));
    ++sent_;
    if (options_.initial_events_end && !initial_end_sent_ && sent_ >= options_.initial_events) {
      out.data += bookmark(e.object->revision, true);
      initial_end_sent_ = true;
    }
  }
  if (options_.initial_events_end && !initial_end_sent_ && sent_ >= options_.initial_events) {
    out.data += bookmark(cache_.revision(), true);
    initial_end_sent_ = true;
  }
  auto now = clock_.now();
  if (options_.bookmarks && now >= next_bookmark_) {
    out.data += bookmark(cache_.revision(), false);
    next_bookmark_ = now + kBookmarkEvery;
  }
  if (!batch.ended.is_ok()) {
    // A watch ended by the cache (too slow, reloaded) tells the client why, as upstream does
    // with an ERROR event; a cancelled one just ends.
    if (batch.ended.code() == Code::kGone && batch.ended.message() != "watch cancelled") {
      ApiError e = api_error(Code::kGone, batch.ended.message());
      out.data += event_line("ERROR", status_body(e).dump());
    }
    finished_ = true;
  } else if (now >= options_.deadline) {
    finished_ = true;
  }
  out.ended = finished_;
  return out;
}

void WatchStream::cancel() { watcher_->cancel(); }

}  // namespace k3c::apiserver
