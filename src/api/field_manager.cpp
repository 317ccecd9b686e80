// managedFields bookkeeping for updates and server-side apply (see field_manager.h).
#include "api/field_manager.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace k3c::api {
namespace {

using nlohmann::json;

// A string member, or "" when absent or not a string (stored entries come from clients).
std::string text(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

struct Entry {
  std::string manager, operation, api_version, time, subresource;
  FieldSet fields;  // valid once read(); until then `stored` holds them
  // The entry's fieldsV1 as stored (in the old object, which outlives the bookkeeping), not
  // read yet: an entry a write leaves alone is written back as it was, without making and
  // encoding its paths (a pod's are ~40 strings each).
  const json* stored = nullptr;

  void read() {
    if (stored == nullptr) return;
    auto set = fieldset_from_v1(*stored);  // fields_v1_readable held: it reads
    if (set.is_ok()) fields = std::move(set).value();
    stored = nullptr;
  }
  bool empty() const {
    if (stored == nullptr) return fields.empty();
    for (auto& [k, child] : stored->items()) {
      if (k != ".") return false;
    }
    return true;
  }
  // Whether any path of `paths` is among the entry's fields.
  bool holds_any(const FieldSet& paths) const {
    if (stored == nullptr) {
      return std::any_of(paths.begin(), paths.end(),
                         [&](const FieldPath& p) { return fields.count(p) > 0; });
    }
    return std::any_of(paths.begin(), paths.end(),
                       [&](const FieldPath& p) { return fields_v1_holds(*stored, p); });
  }

  // Upstream's manager identity: appliers are one manager whatever apiVersion they use.
  bool same_as(const Entry& o) const {
    return manager == o.manager && operation == o.operation && subresource == o.subresource &&
           (operation == "Apply" || api_version == o.api_version);
  }
};

// The entries of `object`'s managedFields, their fields not read yet (Entry::read). `object`
// must outlive them.
std::vector<Entry> read_entries(const json& object) {
  std::vector<Entry> out;
  if (!object.is_object()) return out;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  auto list = meta->find("managedFields");
  if (list == meta->end() || !list->is_array()) return out;
  for (const json& e : *list) {
    if (!e.is_object()) continue;
    Entry entry{text(e, "manager"), text(e, "operation"),   text(e, "apiVersion"),
                text(e, "time"),    text(e, "subresource"), {}};
    auto fields = e.find("fieldsV1");
    if (fields == e.end()) continue;
    if (!fields_v1_readable(*fields)) continue;  // unreadable stored entries are dropped
    entry.stored = &*fields;
    out.push_back(std::move(entry));
  }
  return out;
}

// Upstream's bound on Update entries: past it, the oldest merge into an "ancient-changes"
// entry per apiVersion, so that many writers cannot grow an object without limit.
constexpr size_t kMaxUpdateManagers = 10;

void cap_updaters(std::vector<Entry>& entries) {
  std::erase_if(entries, [](const Entry& e) { return e.empty(); });
  std::vector<size_t> updaters;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].operation == "Update") updaters.push_back(i);
  }
  if (updaters.size() <= kMaxUpdateManagers) return;
  for (Entry& e : entries) e.read();
  std::sort(updaters.begin(), updaters.end(), [&](size_t a, size_t b) {
    return std::tie(entries[a].time, entries[a].manager) <
           std::tie(entries[b].time, entries[b].manager);
  });
  std::vector<Entry> buckets;  // one per apiVersion
  std::vector<bool> merged(entries.size(), false);
  size_t count = updaters.size();
  for (size_t i = 0; i < updaters.size() && count > kMaxUpdateManagers; ++i) {
    Entry& e = entries[updaters[i]];
    auto bucket = std::find_if(buckets.begin(), buckets.end(),
                               [&](const Entry& b) { return b.api_version == e.api_version; });
    if (bucket == buckets.end()) {
      buckets.push_back({"ancient-changes", "Update", e.api_version, e.time, "", e.fields});
    } else {
      bucket->fields.insert(e.fields.begin(), e.fields.end());
      bucket->time = e.time;
      --count;  // only merging into an existing bucket shrinks the list
    }
    merged[updaters[i]] = true;
  }
  std::vector<Entry> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!merged[i]) out.push_back(std::move(entries[i]));
  }
  for (Entry& b : buckets) {
    auto existing =
        std::find_if(out.begin(), out.end(), [&](const Entry& e) { return e.same_as(b); });
    if (existing == out.end()) {
      out.push_back(std::move(b));
    } else {
      existing->fields.insert(b.fields.begin(), b.fields.end());
      existing->time = std::max(existing->time, b.time);
    }
  }
  entries = std::move(out);
}

// Sorted as upstream encodes them: by operation (Apply first), time, manager, apiVersion.
json write_entries(std::vector<Entry> entries) {
  cap_updaters(entries);
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.operation, a.time, a.manager, a.api_version, a.subresource) <
           std::tie(b.operation, b.time, b.manager, b.api_version, b.subresource);
  });
  json out = json::array();
  for (const Entry& e : entries) {
    if (e.empty()) continue;
    json j = {{"manager", e.manager},
              {"operation", e.operation},
              {"apiVersion", e.api_version},
              {"time", e.time},
              {"fieldsType", "FieldsV1"},
              {"fieldsV1", e.stored ? *e.stored : fieldset_to_v1(e.fields)}};
    if (!e.subresource.empty()) j["subresource"] = e.subresource;
    out.push_back(std::move(j));
  }
  return out;
}

// The object as fields are compared: without managedFields (bookkeeping, not content).
json content_of(const json& object) {
  if (!object.is_object()) return json::object();
  json out = object;
  if (out.contains("metadata") && out["metadata"].is_object()) {
    out["metadata"].erase("managedFields");
  }
  return out;
}

// Paths upstream never records, and those the writer's endpoint resets.
FieldSet filtered(FieldSet set, const std::string& subresource) {
  static const std::vector<FieldPath> stripped = {
      {"f:apiVersion"},
      {"f:kind"},
      {"f:metadata"},
      {"f:metadata", "f:name"},
      {"f:metadata", "f:namespace"},
      {"f:metadata", "f:creationTimestamp"},
      {"f:metadata", "f:selfLink"},
      {"f:metadata", "f:uid"},
      {"f:metadata", "f:clusterName"},
      {"f:metadata", "f:generation"},
      {"f:metadata", "f:managedFields"},
      {"f:metadata", "f:resourceVersion"},
  };
  for (const FieldPath& p : stripped) set.erase(p);
  static const FieldPath status_path = {"f:status"};
  std::erase_if(set, [&](const FieldPath& p) {
    bool status = p.starts_with(status_path);
    return subresource == "status" ? !status : status;
  });
  return set;
}

FieldSet minus(FieldSet a, const FieldSet& b) {
  for (const FieldPath& p : b) a.erase(p);
  return a;
}
FieldSet intersection(const FieldSet& a, const FieldSet& b) {
  FieldSet out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

std::string describe(const Entry& e) {
  std::string out = json(e.manager).dump();
  if (!e.subresource.empty()) out += " with subresource " + json(e.subresource).dump();
  if (e.operation == "Update") out += " using " + e.api_version;
  return out;
}

// The writer's entry (its fields read), added when it has none.
Entry& entry_for(std::vector<Entry>& entries, const Writer& w, const char* operation) {
  Entry wanted{w.manager, operation, w.api_version, w.time, w.subresource, {}};
  for (Entry& e : entries) {
    if (e.same_as(wanted)) {
      e.read();
      return e;
    }
  }
  entries.push_back(std::move(wanted));
  return entries.back();
}

// upstream's Updater.update: the fields a write changed leave their other owners (after
// conflicts were checked), removed fields leave everyone.
void release(std::vector<Entry>& entries, const Entry& writer, const FieldSet& changed,
             const FieldSet& removed) {
  for (Entry& e : entries) {
    if (e.same_as(writer)) continue;
    if (!e.holds_any(changed) && !e.holds_any(removed)) continue;
    e.read();
    e.fields = minus(minus(std::move(e.fields), changed), removed);
  }
}

// The fields of the live object's last-applied-configuration annotation whose live values
// still are the annotation's (upstream's lastAppliedManager); empty when there is none.
FieldSet unchanged_since_last_applied(const json& live, const MessageType* type,
                                      const std::string& api_version) {
  const json* annotations = nullptr;
  if (auto m = live.find("metadata"); m != live.end() && m->is_object()) {
    if (auto a = m->find("annotations"); a != m->end() && a->is_object()) annotations = &*a;
  }
  if (annotations == nullptr) return {};
  std::string text_value = text(*annotations, "kubectl.kubernetes.io/last-applied-configuration");
  json last = json::parse(text_value, nullptr, false);
  if (!last.is_object() || text(last, "apiVersion") != api_version) return {};
  auto fields = fields_of(last, type);
  auto cmp = compare(last, live, type);
  if (!fields.is_ok() || !cmp.is_ok()) return {};
  FieldSet out =
      minus(minus(minus(std::move(fields).value(), cmp->modified), cmp->added), cmp->removed);
  return out;
}

}  // namespace

Result<json> managed_fields_after_update(const json& old_object, const json& new_object,
                                         const MessageType* type, const Writer& writer) {
  // Managed fields sent with a write through the main resource replace the stored ones (as
  // upstream allows); otherwise the stored ones are the base.
  std::vector<Entry> entries;
  if (writer.subresource.empty()) entries = read_entries(new_object);
  if (entries.empty()) entries = read_entries(old_object);
  // The whole objects: the comparison skips metadata.managedFields (no copies without it).
  // No object (a create) compares as an empty one.
  static const json kNone = json::object();
  const CompareScope scope = writer.subresource == "status" ? CompareScope::kStatusOnly
                             : writer.subresource.empty()    ? CompareScope::kAllButStatus
                                                             : CompareScope::kWhole;
  ASSIGN_OR_RETURN(Comparison cmp, compare(old_object.is_object() ? old_object : kNone,
                                           new_object.is_object() ? new_object : kNone, type,
                                           scope));
  FieldSet changed = filtered(cmp.modified, writer.subresource);
  for (const FieldPath& p : filtered(cmp.added, writer.subresource)) changed.insert(p);
  FieldSet removed = filtered(cmp.removed, writer.subresource);
  Entry& mine = entry_for(entries, writer, "Update");
  mine.fields = minus(std::move(mine.fields), removed);
  for (const FieldPath& p : changed) mine.fields.insert(p);
  if (!changed.empty()) mine.time = writer.time;
  Entry me{mine.manager, mine.operation, mine.api_version, mine.time, mine.subresource, {}};
  release(entries, me, changed, removed);
  return write_entries(std::move(entries));
}

Result<Applied> apply_configuration(const json& live, const json& config, const MessageType* type,
                                    const Writer& writer, bool force) {
  if (config.contains("metadata") && config["metadata"].is_object() &&
      config["metadata"].contains("managedFields") &&
      !config["metadata"]["managedFields"].is_null()) {
    return error(Code::kBadRequest, "metadata.managedFields must be nil");
  }
  std::vector<Entry> entries = read_entries(live);
  for (Entry& e : entries) e.read();
  json current = content_of(live);
  ASSIGN_OR_RETURN(json merged, merge_applied(current, config, type));
  ASSIGN_OR_RETURN(FieldSet applied, fields_of(config, type));
  applied = filtered(std::move(applied), writer.subresource);

  Entry& mine = entry_for(entries, writer, "Apply");
  FieldSet last = std::move(mine.fields);
  mine.fields = applied;
  mine.api_version = writer.api_version;

  // Fields this manager applied before and dropped now go, unless someone else owns them.
  // A dropped node with owned fields below it stays (upstream keeps named fields whose
  // children someone owns): e.g. `.data` marked "." by a migrated client-side entry.
  FieldSet owned;
  for (const Entry& e : entries) owned.insert(e.fields.begin(), e.fields.end());
  FieldSet dropped = minus(last, owned);
  std::erase_if(dropped, [&](const FieldPath& p) {
    auto next = owned.upper_bound(p);
    return next != owned.end() && next->starts_with(p);
  });
  merged = remove_paths(std::move(merged), dropped, type);
  // As upstream, the entry's time moves only when the apply changed the object.
  if (mine.time.empty() || merged != current) mine.time = writer.time;
  Entry me = mine;

  ASSIGN_OR_RETURN(Comparison cmp, compare(current, merged, type));
  FieldSet changed = filtered(cmp.modified, writer.subresource);
  for (const FieldPath& p : filtered(cmp.added, writer.subresource)) changed.insert(p);
  FieldSet removed = filtered(cmp.removed, writer.subresource);

  Applied out;
  for (const Entry& e : entries) {
    if (e.same_as(me)) continue;
    for (const FieldPath& p : intersection(e.fields, changed)) {
      out.conflicts.push_back({describe(e), p});
    }
  }
  if (!out.conflicts.empty() && !force && writer.manager == "kubectl") {
    // kubectl switching from client-side to server-side apply: upstream lets it take the
    // fields its last-applied-configuration set and nobody changed since.
    FieldSet allowed = unchanged_since_last_applied(current, type, writer.api_version);
    std::erase_if(out.conflicts, [&](const ApplyConflict& c) { return allowed.count(c.path); });
  }
  if (!out.conflicts.empty() && !force) return out;
  out.conflicts.clear();
  release(entries, me, changed, removed);
  merged["metadata"]["managedFields"] = write_entries(std::move(entries));
  out.object = std::move(merged);
  return out;
}

std::string conflict_message(const std::vector<ApplyConflict>& conflicts) {
  if (conflicts.size() == 1) {
    return "Apply failed with 1 conflict: conflict with " + conflicts[0].manager + ": " +
           path_string(conflicts[0].path);
  }
  std::vector<ApplyConflict> sorted = conflicts;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.manager < b.manager; });
  std::string lines;
  std::string manager;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i == 0 || sorted[i].manager != manager) {
      manager = sorted[i].manager;
      lines += (i ? "\n" : "") + std::string("conflicts with ") + manager + ":";
    }
    lines += "\n- " + path_string(sorted[i].path);
  }
  return "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
}

}  // namespace k3c::api
