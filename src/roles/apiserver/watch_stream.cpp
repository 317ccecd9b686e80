// Watch events as an HTTP body (see watch_stream.h).
#include "roles/apiserver/watch_stream.h"

#include <nlohmann/json.hpp>

#include "api/version_conversion.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/table.h"

namespace k3c::apiserver {
namespace {

constexpr auto kBookmarkEvery = std::chrono::seconds(60);
constexpr auto kBookmarkBeforeEnd = std::chrono::seconds(2);

// When the next bookmark is due, as upstream's cacher times them: every minute, and once
// two seconds before the watch's deadline (so that a client resumes from a recent revision),
// none once that moment has passed.
Clock::TimePoint next_bookmark_after(Clock::TimePoint now, Clock::TimePoint deadline) {
  Clock::TimePoint next = std::min(now + kBookmarkEvery, deadline - kBookmarkBeforeEnd);
  return next <= now ? Clock::TimePoint::max() : next;
}

}  // namespace

WatchStream::WatchStream(std::unique_ptr<CacheWatcher> watcher, WatchCache& cache,
                         const Clock& clock, WatchStreamOptions options)
    : watcher_(std::move(watcher)),
      cache_(cache),
      clock_(clock),
      options_(std::move(options)),
      next_bookmark_(next_bookmark_after(clock.now(), options_.deadline)) {}

std::string WatchStream::bookmark(int64_t revision, bool initial_end) const {
  nlohmann::json meta = {{"resourceVersion", std::to_string(revision)}};
  if (initial_end) meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  nlohmann::json o = {
      {"kind", options_.kind}, {"apiVersion", options_.api_version}, {"metadata", meta}};
  return watch_event_line("BOOKMARK", o.dump());
}

std::string WatchStream::object_of(const CachedObject& o) {
  std::string json = o.json.text();
  if (!options_.convert_to.empty() && api::may_need_conversion(json, options_.convert_to)) {
    nlohmann::json object = nlohmann::json::parse(json, nullptr, false);
    // An object that does not convert is sent as stored (it was stored by this server).
    if (api::convert_to_version(object, options_.convert_to).is_ok()) json = object.dump();
  }
  if (!options_.table) return json;  // the shared cached bytes: plain watches pay nothing
  // Upstream's watch encoder sends the column definitions with the first event only.
  TableOptions table{options_.include, columns_sent_};
  columns_sent_ = true;
  const Printer& p =
      options_.printer ? *options_.printer : printer_for(options_.group, options_.kind);
  return make_table(p, {&json}, std::to_string(o.revision), "", table, clock_.wall_now()).dump();
}

void WatchStream::set_wake(std::function<void()> wake) { watcher_->set_wake(std::move(wake)); }

http::BodyStream::Chunk WatchStream::poll() {
  Chunk out;
  if (finished_) {
    out.ended = true;
    return out;
  }
  auto batch = watcher_->poll();
  for (auto& e : batch.events) {
    if (e.line && !options_.table &&
        (options_.convert_to.empty() ||
         !api::may_need_conversion(
             e.object->json.prefix(api::conversion_check_length(options_.convert_to)),
             options_.convert_to))) {
      // Serialized once by the cache for every watcher. Moved, not copied: a thousand
      // watchers share its reference count, and each copy is a contended atomic.
      out.append(std::move(e.line));
    } else {
      out.append(watch_event_line(event_type_name(e.type), object_of(*e.object)));
    }
    ++sent_;
    if (options_.initial_events_end && !initial_end_sent_ && sent_ >= options_.initial_events) {
      out.append(bookmark(e.object->revision, true));
      initial_end_sent_ = true;
    }
  }
  if (options_.initial_events_end && !initial_end_sent_ && sent_ >= options_.initial_events) {
    out.append(bookmark(cache_.revision(), true));
    initial_end_sent_ = true;
  }
  auto now = clock_.now();
  if (options_.bookmarks && now >= next_bookmark_) {
    out.append(bookmark(cache_.revision(), false));
    next_bookmark_ = next_bookmark_after(now, options_.deadline);
  }
  if (!batch.ended.is_ok()) {
    // A watch ended by the cache (too slow, reloaded) tells the client why, as upstream does
    // with an ERROR event; a cancelled one just ends.
    if (batch.ended.code() == Code::kGone && batch.ended.message() != "watch cancelled") {
      ApiError e = api_error(Code::kGone, batch.ended.message());
      out.append(watch_event_line("ERROR", status_body(e).dump()));
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
