#include "client/informer.h"


#include <unordered_set>
#include <utility>

#include "client/event_peek.h"
#include "core/log.h"
#include "core/thread_set.h"

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

// metadata.resourceVersion of a cached object, read in place.
std::string_view version_of(const json& object) { return meta_field(object, "resourceVersion"); }
std::string_view version_of(const cjson::Document& doc) {
  cjson::Value root = doc.root();
  if (!root.is_object()) return {};
  auto meta = root.find("metadata");
  if (meta == root.end() || !meta->is_object()) return {};
  auto rv = meta->find("resourceVersion");
  return rv != meta->end() && rv->is_string() ? rv->text() : std::string_view();
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
      // Compact informers file their documents here too, trimming or not.
      trimmed_path_(transform_.apply || transform_.compact ? path_ + "#" + transform_.name : "") {}

Informer::~Informer() { stop(); }

void Informer::add_handler(EventHandler handler) { handlers_.push_back(std::move(handler)); }

void Informer::add_index(const std::string& name, IndexFunc index) {
  index_funcs_[name] = std::move(index);
}

void Informer::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    name_this_thread("i-" + resource_.plural);
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
  // In list order, in the form the cache keeps: a compact informer holds documents here, not
  // the trees of every object at once, and makes each tree again as it files it below.
  std::vector<Cached> fresh;
  std::unordered_set<std::string> fresh_keys;
  std::string rv;
  do {
    ASSIGN_OR_RETURN(json page, client::list(client_, resource_, "", options));
    if (!page.is_object() || !page["items"].is_array())
      return error(Code::kInternal, "list of " + resource_.plural + " without items");
    for (auto& item : page["items"]) {
      ObjectPtr object = filed(std::move(item));
      fresh_keys.insert(key_of(*object));
      fresh.push_back(cached_form(object));
    }
    const json& meta = std::as_const(page).value("metadata", json::object());
    rv = meta.is_object() ? meta.value("resourceVersion", "") : "";
    options.continue_token = meta.is_object() ? meta.value("continue", "") : "";
  } while (!options.continue_token.empty() && !stopping_);
  // Replace the cache: deletions first, then adds and updates.
  std::vector<Cached> gone_cached;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, object] : objects_) {
      if (!fresh_keys.count(key)) gone_cached.push_back(object);
    }
  }
  for (const auto& object : trees_of(gone_cached)) {
    erase(key_of(*object));
    for (auto& h : handlers_)
      if (h.on_delete) h.on_delete(object);
  }
  for (auto& object : fresh) put(tree_of_filed(object));
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
  if (!object && transform_.compact) {
    // Another compact informer filed this version: its tree is made from the document
    // (cheaper than parsing the event).
    if (auto doc = shared_->find_document(trimmed_path_, peek->resource_version))
      object = tree_of({nullptr, std::move(doc)});
  }
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

// Only the informer's thread writes the cache (put, erase), so what put() and erase() read
// under the mutex is still there when they take it again to write.
void Informer::put(ObjectPtr object) {
  std::string key = key_of(*object);
  Cached old;
  {
    std::lock_guard lock(mu_);
    if (auto it = objects_.find(key); it != objects_.end()) old = it->second;
  }
  if (old) {
    std::string_view old_version = old.tree ? version_of(*old.tree) : version_of(*old.doc);
    if (old_version == version_of(*object)) return;  // a relist finding what the watch delivered
  }
  Cached fresh = cached_form(object);
  ObjectPtr old_tree = old ? tree_of_filed(old) : nullptr;
  if (fresh.doc && shared_) {
    // Filed and kept a moment: the other compact informers take both trees for this event.
    if (old_tree) old_tree = remember(shared_->share(trimmed_path_, std::move(old_tree)));
    remember(object);
  }
  {
    std::lock_guard lock(mu_);
    objects_[key] = std::move(fresh);
    index_locked(key, old_tree.get(), object.get());
  }
  for (auto& h : handlers_) {
    if (old_tree) {
      if (h.on_update) h.on_update(old_tree, object);
    } else if (h.on_add) {
      h.on_add(object);
    }
  }
}

void Informer::erase(const std::string& key) {
  Cached old;
  {
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return;
    old = it->second;
  }
  ObjectPtr old_tree = tree_of_filed(old);  // what was indexed
  std::lock_guard lock(mu_);
  index_locked(key, old_tree.get(), nullptr);
  objects_.erase(key);
}

Informer::Cached Informer::cached_form(const ObjectPtr& object) const {
  if (!transform_.compact) return {object, nullptr};
  // Compact informers file their documents under their transform's name, trimmed or not: a
  // version is trimmed or left whole alike by every informer with that transform.
  return {nullptr, shared_ ? shared_->share_document(trimmed_path_, *object)
                           : cjson::Document::from(*object)};
}

ObjectPtr Informer::remember(ObjectPtr tree) {
  recent_trees_.push_back(tree);
  if (recent_trees_.size() > transform_.recent_trees) recent_trees_.pop_front();
  return tree;
}

ObjectPtr Informer::tree_of_filed(const Cached& cached) const {
  if (cached.doc && shared_) {
    std::string_view version = version_of(*cached.doc);
    if (auto tree = shared_->find(trimmed_path_, version)) return tree;
    if (auto tree = shared_->find(path_, version)) return tree;
  }
  return tree_of(cached);
}

ObjectPtr Informer::tree_of(const Cached& cached) {
  if (cached.tree || !cached.doc) return cached.tree;
  return std::make_shared<const json>(cached.doc->root().to_json());
}

std::vector<ObjectPtr> Informer::trees_of(const std::vector<Cached>& cached) const {
  std::vector<ObjectPtr> out;
  out.reserve(cached.size());
  for (const auto& c : cached) out.push_back(tree_of_filed(c));
  return out;
}

void Informer::index_locked(const std::string& key, const json* old, const json* now) {
  auto values = [&](const json* o, const std::string& name, const IndexFunc& f) {
    if (!o) return std::vector<std::string>{};
    if (name == "namespace") return std::vector<std::string>{meta_field(*o, "namespace")};
    return f(*o);
  };
  static const IndexFunc kNone;
  auto reindex = [&](const std::string& name, const IndexFunc& f) {
    std::vector<std::string> before = values(old, name, f), after = values(now, name, f);
    // Most updates (a status write) leave an object's index values as they were: its key
    // stays filed where it is (taking it out and filing it again cost two searches of sets
    // holding thousands of keys with long common prefixes).
    if (before == after) return;
    auto& index = indexes_[name];
    for (const auto& v : before) {
      auto it = index.find(v);
      if (it == index.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) index.erase(it);
    }
    for (const auto& v : after) index[v].insert(key);
  };
  reindex("namespace", kNone);
  for (const auto& [name, f] : index_funcs_) reindex(name, f);
}

ObjectPtr Informer::get(std::string_view key) const {
  Cached found = cached(key);
  return found ? tree_of_filed(found) : nullptr;
}

Informer::Cached Informer::cached(std::string_view key) const {
  std::lock_guard lock(mu_);
  auto it = objects_.find(std::string(key));
  return it == objects_.end() ? Cached{} : it->second;
}

std::vector<ObjectPtr> Informer::list() const { return trees_of(cached_list()); }

std::vector<Informer::Cached> Informer::cached_list() const {
  std::lock_guard lock(mu_);
  std::vector<Cached> found;
  found.reserve(objects_.size());
  for (const auto& [key, object] : objects_) found.push_back(object);
  return found;
}

std::vector<ObjectPtr> Informer::in_namespace(std::string_view ns) const {
  return by_index("namespace", ns);
}

std::vector<ObjectPtr> Informer::by_index(const std::string& index, std::string_view value) const {
  return trees_of(cached_by_index(index, value));
}

std::vector<Informer::Cached> Informer::cached_by_index(const std::string& index,
                                                        std::string_view value) const {
  std::lock_guard lock(mu_);
  std::vector<Cached> found;
  auto i = indexes_.find(index);
  if (i == indexes_.end()) return found;
  auto v = i->second.find(value);
  if (v == i->second.end()) return found;
  found.reserve(v->second.size());
  for (const auto& key : v->second) {
    if (auto it = objects_.find(key); it != objects_.end()) found.push_back(it->second);
  }
  return found;
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
