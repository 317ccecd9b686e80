// The watch cache (see watch_cache.h).
#include "roles/apiserver/watch_cache.h"

#include "core/log.h"
#include "core/thread_set.h"

namespace k3c::apiserver {
namespace {

using namespace std::chrono_literals;

constexpr const char* kRegistryPrefix = "/registry/";
constexpr int64_t kLoadPage = 5000;

bool has_prefix(std::string_view key, std::string_view prefix) {
  return key.substr(0, prefix.size()) == prefix;
}

// The lines of one cache event, built on first use: a watch whose filter the object enters
// or leaves sees it as ADDED or DELETED (of the previous object), so one event can need up to
// three different lines.
class EventLines {
 public:
  WatchEvent event(EventType type, const ObjectPtr& object) {
    for (const auto& [t, o, line] : made_) {
      if (t == type && o == object.get()) return {type, object, line};
    }
    auto line =
        std::make_shared<const std::string>(watch_event_line(event_type_name(type), object->json));
    made_.push_back({type, object.get(), line});
    return {type, object, std::move(line)};
  }

 private:
  struct Made {
    EventType type;
    const CachedObject* object;
    std::shared_ptr<const std::string> line;
  };
  std::vector<Made> made_;
};

}  // namespace

const char* event_type_name(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "ERROR";
}

namespace {
template <typename Append>
std::string event_line(std::string_view type, size_t object_size, Append append_object) {
  std::string line;
  line.reserve(object_size + type.size() + 24);
  line += R"({"type":")";
  line += type;
  line += R"(","object":)";
  append_object(line);
  line += "}\n";
  return line;
}
}  // namespace

std::string watch_event_line(std::string_view type, std::string_view object_json) {
  return event_line(type, object_json.size(), [&](std::string& out) { out += object_json; });
}

std::string watch_event_line(std::string_view type, const PackedText& object_json) {
  return event_line(type, object_json.size(),
                    [&](std::string& out) { object_json.append_to(out); });
}

const std::string* CachedObject::field(std::string_view path) const {
  if (path == "metadata.name") return &name;
  if (path == "metadata.namespace") return &namespace_;
  for (const auto& [field_name, value] : fields) {
    if (field_name == path) return &value;
  }
  return nullptr;
}

namespace {
bool fields_match(const FieldSelector& selector, const CachedObject& o) {
  return selector.matches_with([&](const std::string& path) { return o.field(path); });
}
}  // namespace

bool Filter::matches(const CachedObject& o) const {
  return has_prefix(o.key, prefix) && labels.matches(o.labels) && fields_match(fields, o);
}

// One watch: a filter and a bounded queue. Shared by the cache (producer, under the cache's
// mutex) and the handle the caller holds (consumer). mu_ guards the queue state.
class WatchCache::Watch final : public CacheWatcher,
                                public std::enable_shared_from_this<WatchCache::Watch> {
 public:
  Watch(Filter filter, size_t limit) : filter_(std::move(filter)), limit_(limit) {}

  // Applies the filter to a change: an object leaving the filter is a DELETED for this
  // watch, one entering it an ADDED. Returns false once the watch has ended.
  bool offer(const WatchEvent& e, const ObjectPtr& previous, EventLines& lines) {
    bool now = e.type != EventType::kDeleted && filter_.matches(*e.object);
    bool before = e.type == EventType::kDeleted ? filter_.matches(*e.object)
                                                : previous && filter_.matches(*previous);
    if (!now && !before) return !ended();
    if (now && before) return push(lines.event(EventType::kModified, e.object));
    if (now) return push(lines.event(EventType::kAdded, e.object));
    return push(
        lines.event(EventType::kDeleted, e.type == EventType::kDeleted ? e.object : previous));
  }

  bool push(WatchEvent e) {
    std::lock_guard lock(mu_);
    if (!ended_.is_ok()) return false;
    if (queue_.size() >= limit_) {
      queue_.clear();
      ended_ = error(Code::kGone, "the watcher is too slow; start a new watch");
    } else {
      queue_.push_back(std::move(e));
    }
    // poll() drains the whole queue, so one wake-up per poll is enough: with a thousand
    // watchers, a wake per event per watcher was a large share of the fan-out. (Called
    // under the lock: the wake only posts, it never calls back.)
    if ((!woken_ || !ended_.is_ok()) && wake_) {
      woken_ = true;
      wake_();
    }
    return true;
  }

  void push_initial(std::vector<WatchEvent> events) {
    std::lock_guard lock(mu_);
    initial_ = events.size();
    for (auto& e : events) queue_.push_back(std::move(e));
  }

  size_t initial_events() const override {
    std::lock_guard lock(mu_);
    return initial_;
  }

  void end(Status why) {
    std::function<void()> wake;
    {
      std::lock_guard lock(mu_);
      if (ended_.is_ok()) ended_ = std::move(why);
      wake = wake_;
    }
    if (wake) wake();
  }

  bool ended() const {
    std::lock_guard lock(mu_);
    return !ended_.is_ok();
  }

  void set_wake(std::function<void()> wake) override {
    std::lock_guard lock(mu_);
    wake_ = std::move(wake);
  }

  Batch poll() override {
    std::lock_guard lock(mu_);
    woken_ = false;
    Batch b;
    b.events.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
    queue_.clear();
    b.ended = ended_;
    return b;
  }

  void cancel() override {
    std::lock_guard lock(mu_);
    if (ended_.is_ok()) ended_ = error(Code::kGone, "watch cancelled");
    wake_ = nullptr;
  }

  const Filter& filter() const { return filter_; }

 private:
  const Filter filter_;
  const size_t limit_;
  mutable std::mutex mu_;
  std::deque<WatchEvent> queue_;
  size_t initial_ = 0;  // synthetic ADDED events queued at the start
  Status ended_;
  std::function<void()> wake_;
  bool woken_ = false;  // a wake-up was sent since the last poll()
};

namespace {

// The handle given to callers: ends the watch when dropped.
class WatchHandle final : public CacheWatcher {
 public:
  explicit WatchHandle(std::shared_ptr<CacheWatcher> w) : w_(std::move(w)) {}
  ~WatchHandle() override { w_->cancel(); }
  void set_wake(std::function<void()> wake) override { w_->set_wake(std::move(wake)); }
  Batch poll() override { return w_->poll(); }
  void cancel() override { w_->cancel(); }
  size_t initial_events() const override { return w_->initial_events(); }

 private:
  std::shared_ptr<CacheWatcher> w_;
};

}  // namespace

WatchCache::WatchCache(store::Store& store, Decoder decoder, WatchCacheOptions options)
    : store_(store), decode_(std::move(decoder)), options_(options) {}

WatchCache::~WatchCache() { stop(); }

Status WatchCache::start() {
  RETURN_IF_ERROR(load());
  applier_ = std::thread([this] {
    name_this_thread("watch-cache");
    run();
  });
  return Status::ok();
}

void WatchCache::stop() {
  std::vector<std::shared_ptr<Watch>> watchers;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    watchers.swap(watchers_);
  }
  for (auto& w : watchers) w->end(error(Code::kServiceUnavailable, "apiserver is shutting down"));
  if (store_watch_) store_watch_->cancel();
  if (applier_.joinable()) applier_.join();
}

Status WatchCache::load() {
  std::map<std::string, ObjectPtr, std::less<>> objects;
  store::ListOptions page{kLoadPage, "", 0};
  int64_t revision = 0;
  while (true) {
    ASSIGN_OR_RETURN(auto list, store_.list(kRegistryPrefix, page));
    revision = list.revision;
    for (const auto& kv : list.items) {
      if (uncached(kv.key)) continue;
      auto decoded = kept(kv);
      if (!decoded.is_ok()) {
        // A stored object we cannot read must not take the server down; it is reported and
        // left in the store untouched.
        log::for_role("apiserver")
            ->error("watch cache: skipping {}: {}", kv.key, decoded.status().to_string());
        continue;
      }
      auto key = (*decoded)->key;
      objects[key] = std::move(decoded).value();
    }
    if (!list.more) break;
    page.after = list.items.back().key;
    page.revision = list.revision;
  }
  ASSIGN_OR_RETURN(store_watch_, store_.watch("", revision));
  std::vector<std::shared_ptr<Watch>> ended;
  {
    std::lock_guard lock(mu_);
    objects_ = std::move(objects);
    revision_ = revision;
    history_.clear();
    history_floor_ = revision;
    ended.swap(watchers_);
  }
  advanced_.notify_all();
  for (auto& w : ended) w->end(error(Code::kGone, "the watch cache was reloaded; start again"));
  return Status::ok();
}

void WatchCache::run() {
  auto log = log::for_role("apiserver");
  while (true) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    auto batch = store_watch_->next(200ms);
    if (batch.is_ok()) {
      if (!batch->empty()) apply(*batch);
      continue;
    }
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    // The store ended our watch (we fell behind, or it compacted past us): start over.
    log->warn("watch cache: store watch ended ({}); reloading", batch.status().to_string());
    Status s = load();
    if (!s.is_ok()) {
      log->error("watch cache: reload failed: {}", s.to_string());
      std::this_thread::sleep_for(1s);
    }
  }
}

void WatchCache::apply(const std::vector<store::Event>& events) {
  struct Change {
    store::Event::Type type;
    ObjectPtr object;
    bool uncached = false;
    ObjectPtr previous;  // uncached updates only: the cache has no earlier version to offer
  };
  auto decode_logged = [this](const store::KeyValue& kv) -> ObjectPtr {
    auto o = kept(kv);
    if (o.is_ok()) return std::move(o).value();
    log::for_role("apiserver")
        ->error("watch cache: cannot decode {} at {}: {}", kv.key, kv.mod_revision,
                o.status().to_string());
    return nullptr;
  };
  // Decode outside the lock: parsing is the expensive part.
  std::vector<Change> changes;
  changes.reserve(events.size());
  int64_t last = 0;
  for (const auto& e : events) {
    last = e.kv.mod_revision;
    if (!has_prefix(e.kv.key, kRegistryPrefix)) continue;
    Change change{e.type, decode_logged(e.kv), uncached(e.kv.key), nullptr};
    if (!change.object) continue;
    // Watches with selectors need the version before an update to see it leave or enter.
    if (change.uncached && e.type == store::Event::Type::kUpdate && e.prev) {
      change.previous = decode_logged(*e.prev);
    }
    changes.push_back(std::move(change));
  }
  {
    std::lock_guard lock(mu_);
    for (auto& [type, object, is_uncached, prior] : changes) {
      ObjectPtr previous;
      WatchEvent ev;
      ev.object = object;
      if (is_uncached) {
        previous = prior;
        ev.type = type == store::Event::Type::kDelete   ? EventType::kDeleted
                  : type == store::Event::Type::kUpdate ? EventType::kModified
                                                        : EventType::kAdded;
      } else {
        auto it = objects_.find(object->key);
        if (it != objects_.end()) previous = it->second;
        if (type == store::Event::Type::kDelete) {
          ev.type = EventType::kDeleted;
          if (it != objects_.end()) objects_.erase(it);
        } else {
          ev.type = previous ? EventType::kModified : EventType::kAdded;
          objects_[object->key] = object;
        }
      }
      deliver(ev, previous);
      history_.emplace_back(ev, previous);
      while (history_.size() > options_.history_events) {
        history_floor_ = history_.front().first.object->revision;
        history_.pop_front();
      }
    }
    revision_ = std::max(revision_, last);
  }
  advanced_.notify_all();
}

void WatchCache::deliver(const WatchEvent& event, const ObjectPtr& previous) {
  EventLines lines;
  std::erase_if(watchers_,
                [&](const std::shared_ptr<Watch>& w) { return !w->offer(event, previous, lines); });
}

int64_t WatchCache::revision() const {
  std::lock_guard lock(mu_);
  return revision_;
}

Status WatchCache::wait_for(int64_t revision) {
  if (revision < 0) return Status::ok();  // "any": serve what the cache has
  if (revision == 0) revision = store_.current_revision();
  std::unique_lock lock(mu_);
  if (advanced_.wait_for(lock, options_.catch_up_timeout,
                         [&] { return revision_ >= revision || stopping_; })) {
    return Status::ok();
  }
  return error(Code::kTimeout,
               "Too large resource version: " + std::to_string(revision) +
                   ", current: " + std::to_string(revision_),
               revision_);
}

bool WatchCache::has(int64_t revision) const {
  if (revision < 0) return true;
  if (revision == 0) revision = store_.current_revision();
  std::lock_guard lock(mu_);
  return revision_ >= revision;
}

bool WatchCache::uncached(std::string_view key) const {
  for (const auto& prefix : options_.uncached_prefixes) {
    if (has_prefix(key, prefix)) return true;
  }
  return false;
}

Result<ObjectPtr> WatchCache::decoded(const store::KeyValue& kv) const {
  ASSIGN_OR_RETURN(CachedObject o, decode_(kv));
  return std::make_shared<const CachedObject>(std::move(o));
}

Result<ObjectPtr> WatchCache::kept(const store::KeyValue& kv) {
  ASSIGN_OR_RETURN(CachedObject o, decode_(kv));
  // One packer per resource: the key up to the resource's segment ("/registry/pods/").
  const size_t end = o.key.find('/', std::string_view(kRegistryPrefix).size());
  const std::string_view family = std::string_view(o.key).substr(0, end + 1);
  auto it = packers_.find(family);
  if (it == packers_.end()) it = packers_.emplace(std::string(family), TextPacker()).first;
  o.json = it->second.pack(std::move(o.json));
  return std::make_shared<const CachedObject>(std::move(o));
}

Result<ObjectPtr> WatchCache::get(const std::string& key, int64_t min_revision) {
  RETURN_IF_ERROR(wait_for(min_revision));
  if (uncached(key)) {
    // The store is at least as new as the cache, so this read sees what the cache has.
    auto kv = store_.get(key);
    if (!kv.is_ok()) return kv.status();
    return decoded(*kv);
  }
  std::lock_guard lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return error(Code::kNotFound, key);
  return it->second;
}

Result<ObjectPtr> WatchCache::get_or_catch_up(const std::string& key) {
  auto o = get(key, -1);
  if (!o.is_ok() && o.status().code() == Code::kNotFound) return get(key, 0);
  return o;
}

Result<ListSnapshot> WatchCache::list(const Filter& filter, int64_t min_revision,
                                      const std::string& after, int64_t limit) {
  RETURN_IF_ERROR(wait_for(min_revision));
  if (uncached(filter.prefix)) return list_at(filter, revision(), after, limit);
  ListSnapshot out;
  std::lock_guard lock(mu_);
  out.revision = revision_;
  auto it = after.empty() ? objects_.lower_bound(filter.prefix) : objects_.upper_bound(after);
  for (; it != objects_.end() && has_prefix(it->first, filter.prefix); ++it) {
    const CachedObject& o = *it->second;
    if (!filter.labels.matches(o.labels) || !fields_match(filter.fields, o)) continue;
    if (limit > 0 && static_cast<int64_t>(out.items.size()) == limit) {
      if (out.next_key.empty()) out.next_key = out.items.back()->key;
      ++out.remaining;
      continue;
    }
    out.items.push_back(it->second);
  }
  return out;
}

Result<std::unique_ptr<CacheWatcher>> WatchCache::watch(const Filter& filter,
                                                        int64_t from_revision) {
  if (from_revision > 0) RETURN_IF_ERROR(wait_for(from_revision));
  if (from_revision == 0 && uncached(filter.prefix)) return watch_uncached(filter);
  auto w = std::make_shared<Watch>(filter, options_.watcher_queue);
  std::lock_guard lock(mu_);
  if (stopping_) return error(Code::kServiceUnavailable, "apiserver is shutting down");
  if (from_revision == 0) {
    std::vector<WatchEvent> initial;
    for (auto it = objects_.lower_bound(filter.prefix);
         it != objects_.end() && has_prefix(it->first, filter.prefix); ++it) {
      if (filter.matches(*it->second)) initial.push_back({EventType::kAdded, it->second});
    }
    w->push_initial(std::move(initial));
  } else {
    if (from_revision < history_floor_) {
      return error(Code::kGone,
                   "too old resource version: " + std::to_string(from_revision) + " (" +
                       std::to_string(history_floor_) + ")",
                   history_floor_);
    }
    for (const auto& [event, previous] : history_) {
      if (event.object->revision <= from_revision) continue;
      EventLines lines;  // a replay is for this watch alone
      w->offer(event, previous, lines);
    }
  }
  watchers_.push_back(w);
  return std::unique_ptr<CacheWatcher>(std::make_unique<WatchHandle>(w));
}

Result<std::unique_ptr<CacheWatcher>> WatchCache::watch_uncached(const Filter& filter) {
  // The current objects come from the store at the cache's revision R, read without the
  // lock; what the cache applied after R is then replayed from its history, as a watch from
  // R would get it. Only when the history moved past R meanwhile (thousands of changes during
  // one read) is the read done again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int64_t at = revision();
    ASSIGN_OR_RETURN(ListSnapshot current, list_at(filter, at, "", 0));
    std::vector<WatchEvent> initial;
    initial.reserve(current.items.size());
    for (auto& item : current.items) initial.push_back({EventType::kAdded, std::move(item)});
    auto w = std::make_shared<Watch>(filter, options_.watcher_queue);
    std::lock_guard lock(mu_);
    if (stopping_) return error(Code::kServiceUnavailable, "apiserver is shutting down");
    if (at < history_floor_) continue;
    w->push_initial(std::move(initial));
    for (const auto& [event, previous] : history_) {
      if (event.object->revision <= at) continue;
      EventLines lines;
      w->offer(event, previous, lines);
    }
    watchers_.push_back(w);
    return std::unique_ptr<CacheWatcher>(std::make_unique<WatchHandle>(w));
  }
  return error(Code::kServiceUnavailable,
               "the objects changed faster than they could be listed; try again");
}

Result<ListSnapshot> WatchCache::list_at(const Filter& filter, int64_t revision,
                                         const std::string& after, int64_t limit) {
  ListSnapshot out;
  out.revision = revision;
  out.remaining = -1;  // not counted: remainingItemCount is left out, as it may be
  store::ListOptions o;
  o.revision = revision;
  o.after = after;
  // Read in pages of the store until `limit` objects match (selectors filter here).
  o.limit = limit > 0 ? std::max<int64_t>(limit, 100) : 0;
  for (;;) {
    auto page = store_.list(filter.prefix, o);
    if (!page.is_ok()) return page.status();
    for (const store::KeyValue& kv : page->items) {
      ASSIGN_OR_RETURN(ObjectPtr object, decoded(kv));
      if (!filter.matches(*object)) continue;
      if (limit > 0 && static_cast<int64_t>(out.items.size()) == limit) {
        out.next_key = out.items.back()->key;  // one more matches: the page is cut here
        return out;
      }
      out.items.push_back(std::move(object));
    }
    if (!page->more || page->items.empty()) return out;
    o.after = page->items.back().key;
  }
}

}  // namespace k3c::apiserver
