#include "client/informer.h"

#include <pthread.h>

#include <unordered_set>
#include <utility>

#include "client/event_peek.h"
#include "core/log.h"

namespace k3c::client {

using nlohmann::json;

namespace {

constexpr int64_t kPageSize = 500;
constexpr int kWatchTimeoutSeconds = 300;

const std::string& meta_field(const json& object, const char* field) {
  static const std::string kEmpty;
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return kEmpty;
  auto f = m->find(field);
  if (f == m->end() || !f->is_string()) return kEmpty;
  return f->get_ref<const std::string&>();
}

void trim(json& object) {
  if (auto m = object.find("metadata"); m != object.end() && m->is_object())
    m->erase("managedFields");
}

}  // namespace

std::string key_of(const json& object) {
  const std::string& ns = meta_field(object, "namespace");
  const std::string& name = meta_field(object, "name");
  return ns.empty() ? name : ns + "/" + name;
}

std::pair<std::string, std::string> split_key(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

Informer::Informer(Client& client, ResourceId resource, ListOptions selectors,
                   std::shared_ptr<SharedObjects> shared, CacheTransform transform)
    : client_(client),
      resource_(std::move(resource)),
      selectors_(std::move(selectors)),
      shared_(std::move(shared)),
      transform_(std::move(transform)),
      path_(resource_.path()),
      trimmed_path_(transform_.apply ? path_ + "#" + transform_.name : "") {}

Informer::~Informer() { stop(); }

void Informer::add_handler(EventHandler handler) { handlers_.push_back(std::move(handler)); }

void Informer::add_index(const std::string& name, IndexFunc index) {
  index_funcs_[name] = std::move(index);
}

void Informer::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), ("i-" + resource_.plural).substr(0, 15).c_str());
    run();
  });
}

void Informer::stop() {
  stopping_ = true;
  {
    std::lock_guard lock(watch_mu_);
    if (current_watch_) current_watch_->cancel();
  }
  sleep_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Informer::sleep_for(std::chrono::milliseconds d) {
  std::unique_lock lock(sleep_mu_);
  sleep_cv_.wait_for(lock, d, [&] { return stopping_.load(); });
}

std::string Informer::selector_query() const {
  std::string q;
  if (!selectors_.label_selector.empty())
    q += "&labelSelector=" + query_escape(selectors_.label_selector);
  if (!selectors_.field_selector.empty())
    q += "&fieldSelector=" + query_escape(selectors_.field_selector);
  return q;
}

void Informer::run() {
  auto logger = log::for_role("informer");
  std::chrono::milliseconds backoff(200);
  bool need_list = true;
  while (!stopping_) {
    try {
      run_once(need_list, backoff);
    } catch (const std::exception& e) {
      // A malformed object or event must not end the informer (nor the process).
      logger->error("informer {}: {}; listing again", resource_.plural, e.what());
      need_list = true;
      sleep_for(backoff);
    }
  }
}

void Informer::run_once(bool& need_list, std::chrono::milliseconds& backoff) {
  auto logger = log::for_role("informer");
  {
    if (need_list) {
      Status listed = relist();
      if (!listed.is_ok()) {
        if (stopping_) return;
        logger->warn("list {}: {}", resource_.plural, listed.message());
        sleep_for(backoff);
        backoff = std::min(backoff * 2, std::chrono::milliseconds(30'000));
        return;
      }
      synced_.set();
      need_list = false;
    }
    WatchEnd end = watch_once();
    if (end == WatchEnd::kStopped) return;
    if (end == WatchEnd::kRelist) need_list = true;
    if (end != WatchEnd::kResume || need_list) {
      sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(30'000));
    } else {
      backoff = std::chrono::milliseconds(200);
    }
  }
}

Status Informer::relist() {
  ListOptions options = selectors_;
  options.limit = kPageSize;
  std::vector<ObjectPtr> fresh;  // in list order
  std::unordered_set<std::string> fresh_keys;
  std::string rv;
  do {
    ASSIGN_OR_RETURN(json page, client::list(client_, resource_, "", options));
    if (!page.is_object() || !page["items"].is_array())
      return error(Code::kInternal, "list of " + resource_.plural + " without items");
    for (auto& item : page["items"]) {
      ObjectPtr object = filed(std::move(item));
      fresh_keys.insert(key_of(*object));
      fresh.push_back(std::move(object));
    }
    const json& meta = std::as_const(page).value("metadata", json::object());
    rv = meta.is_object() ? meta.value("resourceVersion", "") : "";
    options.continue_token = meta.is_object() ? meta.value("continue", "") : "";
  } while (!options.continue_token.empty() && !stopping_);
  // Replace the cache: deletions first, then adds and updates.
  std::vector<ObjectPtr> gone;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, object] : objects_) {
      if (!fresh_keys.count(key)) gone.push_back(object);
    }
  }
  for (const auto& object : gone) {
    erase(key_of(*object));
    for (auto& h : handlers_)
      if (h.on_delete) h.on_delete(object);
  }
  for (auto& object : fresh) put(std::move(object));
  resource_version_ = rv;
  return Status::ok();
}

Informer::WatchEnd Informer::watch_once() {
  std::string target = resource_.path() + "?watch=1&allowWatchBookmarks=true&resourceVersion=" +
                       query_escape(resource_version_) +
                       "&timeoutSeconds=" + std::to_string(kWatchTimeoutSeconds) + selector_query();
  auto lines = client_.watch(target);
  if (!lines.is_ok()) {
    if (lines.status().code() == Code::kGone || lines.status().code() == Code::kCompacted)
      return WatchEnd::kRelist;
    return stopping_ ? WatchEnd::kStopped : WatchEnd::kRelist;
  }
  {
    std::lock_guard lock(watch_mu_);
    if (stopping_) return WatchEnd::kStopped;
    current_watch_ = lines->get();
  }
  WatchEnd end = WatchEnd::kResume;
  while (!stopping_) {
    auto line = (*lines)->next(std::chrono::seconds(1));
    if (!line) {
      if ((*lines)->ended()) break;
      continue;
    }
    if (apply_shared(*line)) continue;
    // managedFields cut out of the text first: trim() would drop it after the parse anyway.
    auto cut = without_managed_fields(*line);
    json event =
        json::parse(cut ? std::string_view(*cut) : std::string_view(*line), nullptr, false);
    if (!event.is_object()) {
      end = WatchEnd::kRelist;
      break;
    }
    std::string type = event.value("type", "");
    if (type == "ERROR") {
      // 410 Expired: the version we hold is compacted away; anything else: start over too.
      end = WatchEnd::kRelist;
      break;
    }
    if (type == "BOOKMARK") {  // only a resourceVersion: never filed as an object
      if (const std::string& rv = meta_field(event["object"], "resourceVersion"); !rv.empty())
        resource_version_ = rv;
      continue;
    }
    apply(type, filed(std::move(event["object"])));
  }
  {
    std::lock_guard lock(watch_mu_);
    current_watch_ = nullptr;
  }
  (*lines)->cancel();
  return stopping_ ? WatchEnd::kStopped : end;
}

ObjectPtr Informer::filed(json object) {
  trim(object);
  bool trimmed = transform_.apply && transform_.apply(object);
  auto parsed = std::make_shared<const json>(std::move(object));
  return shared_ ? shared_->share(trimmed ? trimmed_path_ : path_, std::move(parsed)) : parsed;
}

bool Informer::apply_shared(std::string_view line) {
  if (!shared_) return false;
  auto peek = peek_event(line);
  if (!peek) return false;
  if (peek->type == "BOOKMARK") {
    resource_version_ = std::string(peek->resource_version);
    return true;
  }
  if (peek->type != "ADDED" && peek->type != "MODIFIED" && peek->type != "DELETED") return false;
  // A trimming informer takes its own kind of tree or a whole one; others only whole ones.
  ObjectPtr object;
  if (!trimmed_path_.empty()) object = shared_->find(trimmed_path_, peek->resource_version);
  if (!object) object = shared_->find(path_, peek->resource_version);
  if (!object) return false;
  apply(peek->type, std::move(object));
  return true;
}

void Informer::apply(std::string_view type, ObjectPtr now) {
  const std::string& rv = meta_field(*now, "resourceVersion");
  if (!rv.empty()) resource_version_ = rv;
  if (type == "DELETED") {
    std::string key = key_of(*now);
    erase(key);
    for (auto& h : handlers_)
      if (h.on_delete) h.on_delete(now);
    return;
  }
  put(std::move(now));
}

void Informer::put(ObjectPtr object) {
  std::string key = key_of(*object);
  ObjectPtr old;
  {
    std::lock_guard lock(mu_);
    auto& slot = objects_[key];
    old = slot;
    if (old && meta_field(*old, "resourceVersion") == meta_field(*object, "resourceVersion"))
      return;  // a relist finding what the watch already delivered
    slot = object;
    index_locked(key, old.get(), object.get());
  }
  for (auto& h : handlers_) {
    if (old) {
      if (h.on_update) h.on_update(old, object);
    } else if (h.on_add) {
      h.on_add(object);
    }
  }
}

void Informer::erase(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return;
  index_locked(key, it->second.get(), nullptr);
  objects_.erase(it);
}

void Informer::index_locked(const std::string& key, const json* old, const json* now) {
  auto values = [&](const json* o, const std::string& name, const IndexFunc& f) {
    if (!o) return std::vector<std::string>{};
    if (name == "namespace") return std::vector<std::string>{meta_field(*o, "namespace")};
    return f(*o);
  };
  static const IndexFunc kNone;
  auto reindex = [&](const std::string& name, const IndexFunc& f) {
    auto& index = indexes_[name];
    for (const auto& v : values(old, name, f)) {
      auto it = index.find(v);
      if (it == index.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) index.erase(it);
    }
    for (const auto& v : values(now, name, f)) index[v].insert(key);
  };
  reindex("namespace", kNone);
  for (const auto& [name, f] : index_funcs_) reindex(name, f);
}

ObjectPtr Informer::get(std::string_view key) const {
  std::lock_guard lock(mu_);
  auto it = objects_.find(std::string(key));
  return it == objects_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Informer::list() const {
  std::lock_guard lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(object);
  return out;
}

std::vector<ObjectPtr> Informer::in_namespace(std::string_view ns) const {
  return by_index("namespace", ns);
}

std::vector<ObjectPtr> Informer::by_index(const std::string& index, std::string_view value) const {
  std::lock_guard lock(mu_);
  std::vector<ObjectPtr> out;
  auto i = indexes_.find(index);
  if (i == indexes_.end()) return out;
  auto v = i->second.find(value);
  if (v == i->second.end()) return out;
  for (const auto& key : v->second) {
    if (auto it = objects_.find(key); it != objects_.end()) out.push_back(it->second);
  }
  return out;
}

bool Informer::has_index(const std::string& name) const {
  // index_funcs_ is only written before start(): no lock needed.
  return name == "namespace" || index_funcs_.count(name) > 0;
}

size_t Informer::size() const {
  std::lock_guard lock(mu_);
  return objects_.size();
}

}  // namespace k3c::client
