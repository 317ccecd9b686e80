// The event recorder (see event_recorder.h).
#include "client/event_recorder.h"

#include <cstdio>

#include "core/ids.h"
#include "core/log.h"
#include "core/thread_set.h"

namespace k3c::client {

namespace {
using nlohmann::json;
constexpr size_t kQueueLimit = 1000;

// metadata.<field> as a string ("" when absent or not a string).
std::string meta_str(const json& object, const char* field) {
  if (!object.is_object()) return "";
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  auto value = meta->find(field);
  return value != meta->end() && value->is_string() ? value->get<std::string>() : "";
}
constexpr auto kAggregateWindow = std::chrono::minutes(10);
}  // namespace

EventRecorder::EventRecorder(Client& client, std::string component, const Clock& clock)
    : client_(client), component_(std::move(component)), clock_(clock) {
  thread_ = std::thread([this] {
    name_this_thread("events");
    run();
  });
}

EventRecorder::~EventRecorder() { stop(); }

void EventRecorder::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

size_t EventRecorder::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void EventRecorder::record(const json& object, const std::string& type, const std::string& reason,
                           const std::string& message, const std::string& source,
                           const std::string& field_path) {
  json involved = {{"apiVersion", object.value("apiVersion", "")},
                   {"kind", object.value("kind", "")},
                   {"name", meta_str(object, "name")},
                   {"uid", meta_str(object, "uid")},
                   {"resourceVersion", meta_str(object, "resourceVersion")}};
  std::string ns = meta_str(object, "namespace");
  if (!ns.empty()) involved["namespace"] = ns;
  if (!field_path.empty()) involved["fieldPath"] = field_path;
  std::lock_guard lock(mu_);
  if (stopping_) return;
  if (queue_.size() >= kQueueLimit) {
    ++dropped_;
    return;
  }
  queue_.push_back({std::move(involved), ns.empty() ? "default" : ns, type, reason, message,
                    source.empty() ? component_ : source});
  cv_.notify_one();
}

void EventRecorder::run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    Pending e = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    try {
      write(e);
    } catch (const std::exception& ex) {
      // An event is best effort: a malformed one is dropped, never fatal.
      log::for_role("events")->warn("dropped event {}: {}", e.reason, ex.what());
    }
    lock.lock();
  }
}

void EventRecorder::write(const Pending& e) {
  std::string now = rfc3339(clock_.wall_now());
  std::string object_key = e.source;
  for (const char* field : {"apiVersion", "kind", "namespace", "name", "uid"})
    object_key += "\n" + e.involved.value(field, "");
  std::string id = e.involved.value("uid", "") + "\n" + e.involved.value("fieldPath", "") + "\n" +
                   e.reason + "\n" + e.message;
  Correlation c =
      correlator_.correlate(object_key, object_key + "\n" + e.type + "\n" + e.reason, id, e.message);
  if (c.skip) return;  // upstream's spam filter: this source said enough about the object
  auto& seen = seen_[c.dedupe_key];
  if (seen.count > 0 && clock_.now() - seen.at < kAggregateWindow) {
    json patch = {{"count", seen.count + 1}, {"lastTimestamp", now}, {"message", c.message}};
    if (client::patch(client_, resources::kEvents, e.ns, seen.name, "application/merge-patch+json",
                      patch)
            .is_ok()) {
      ++seen.count;
      seen.at = clock_.now();
      return;
    }
  }
  // Upstream names events <object>.<hex nanoseconds>.
  char suffix[20];
  std::snprintf(suffix, sizeof suffix, "%llx",
                static_cast<unsigned long long>(clock_.wall_now().time_since_epoch() /
                                                std::chrono::nanoseconds(1)));
  std::string name = e.involved.value("name", "") + "." + suffix;
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}, {"namespace", e.ns}}},
                {"involvedObject", e.involved},
                {"reason", e.reason},
                {"message", c.message},
                {"type", e.type},
                {"source", {{"component", e.source}}},
                {"reportingComponent", e.source},
                {"reportingInstance", ""},
                {"firstTimestamp", now},
                {"lastTimestamp", now},
                {"count", 1}};
  if (client::create(client_, resources::kEvents, e.ns, event).is_ok()) {
    seen = {name, 1, clock_.now(), now};
  }
  if (seen_.size() > 4096) seen_.clear();  // bounded; aggregation is best effort
}

}  // namespace k3c::client
