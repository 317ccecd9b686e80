// Stored object -> cache entry (see object_codec.h).
#include "roles/apiserver/object_codec.h"

#include <map>
#include <optional>

#include "core/json_scan.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

struct KindKey {
  std::string_view group, kind;
  bool operator<(const KindKey& o) const {
    return std::tie(group, kind) < std::tie(o.group, o.kind);
  }
};

// Upstream's field-label conversion functions, per kind.
const std::map<KindKey, std::vector<std::string>>& field_table() {
  static const std::map<KindKey, std::vector<std::string>> table = {
      {{"", "Pod"},
       {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
        "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}},
      {{"", "Event"},
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
        "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}},
      {{"", "Secret"}, {"type"}},
      {{"", "Node"}, {"spec.unschedulable"}},
      {{"", "Namespace"}, {"status.phase"}},
      {{"", "ReplicationController"}, {"status.replicas"}},
      {{"apps", "ReplicaSet"}, {"status.replicas"}},
      {{"batch", "Job"}, {"status.successful"}},
      {{"certificates.k8s.io", "CertificateSigningRequest"}, {"spec.signerName"}},
      {{"events.k8s.io", "Event"},
       {"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
        "regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reason",
        "reportingController", "type"}},
  };
  return table;
}

std::string_view group_of(std::string_view api_version) {
  auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

}  // namespace

const std::vector<std::string>& selectable_fields(std::string_view group, std::string_view kind) {
  static const std::vector<std::string> none;
  auto it = field_table().find({group, kind});
  return it == field_table().end() ? none : it->second;
}

bool is_selectable(std::string_view group, std::string_view kind, std::string_view field) {
  if (field == "metadata.name" || field == "metadata.namespace") return true;
  for (const auto& f : selectable_fields(group, kind)) {
    if (f == field) return true;
  }
  return false;
}

std::string field_value(const json& object, std::string_view path) {
  const json* at = &object;
  const std::string full(path);
  size_t start = 0;
  while (start <= full.size()) {
    size_t dot = full.find('.', start);
    std::string part =
        full.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object()) return "";
    auto it = at->find(part);
    if (it == at->end()) return "";
    at = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_null()) return "";
  return at->dump();
}

namespace {

// Fills o.fields with the kind's non-empty selectable fields, read by `read(path)` (nullopt:
// the reader failed, and so does this). One loop for both decoders below.
template <typename Reader>
bool fill_fields(CachedObject& o, std::string_view api_version, std::string_view kind,
                 Reader read) {
  // metadata.name and metadata.namespace are o.name and o.namespace_ (CachedObject::field).
  // Names view the static field table; empty values are left out (they read as "").
  auto add = [&](std::string_view name, std::string_view path) {
    std::optional<std::string> value = read(path);
    if (!value) return false;
    if (!value->empty()) o.fields.emplace_back(name, std::move(*value));
    return true;
  };
  const auto& own = selectable_fields(group_of(api_version), kind);
  // Events are stored in the core shape and also listed through events.k8s.io/v1, whose
  // field selectors name the same fields differently.
  const bool core_event = api_version == "v1" && kind == "Event";
  const auto& events_api = core_event ? selectable_fields("events.k8s.io", "Event") : own;
  o.fields.reserve(own.size() + (core_event ? events_api.size() : 0));
  for (const auto& f : own) {
    // "source" on core Events selects source.component.
    if (!add(f, f == "source" ? "source.component" : std::string_view(f))) return false;
  }
  if (core_event) {
    for (const auto& f : events_api) {
      std::string core = f.starts_with("regarding.")  ? "involvedObject." + f.substr(10)
                         : f == "reportingController" ? "reportingComponent"
                                                      : f;
      if (!add(f, core)) return false;
    }
  }
  o.fields.shrink_to_fit();  // values left out: no slack held for as long as the cache holds it
  return true;
}

// A JSON string's contents without escapes ("\"abc\"" -> abc); nullopt for other values and
// strings with escapes.
std::optional<std::string_view> plain_contents(std::string_view value) {
  if (value.size() < 2 || value.front() != '"' || value.back() != '"') return std::nullopt;
  std::string_view inner = value.substr(1, value.size() - 2);
  if (inner.find('\\') != std::string_view::npos) return std::nullopt;
  return inner;
}

// A scalar's selector form from its JSON text, as field_value() gives it from the tree.
std::optional<std::string> selector_text(std::string_view value) {
  if (auto plain = plain_contents(value)) return std::string(*plain);
  if (value == "null") return std::string();
  if (value == "true" || value == "false") return std::string(value);
  // An integer as the encoder writes it prints the same; anything else goes through a parse.
  std::string_view digits = value.starts_with('-') ? value.substr(1) : value;
  if (!digits.empty() && digits.size() < 18 && (digits[0] != '0' || value == "0") &&
      digits.find_first_not_of("0123456789") == std::string_view::npos)
    return std::string(value);
  // Escaped strings, other numbers, objects and arrays: as the tree would read and print them.
  json parsed = json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  if (parsed.is_string()) return parsed.get<std::string>();
  return parsed.dump();
}

// Where metadata.resourceVersion goes in a serialized metadata object: the span of its value,
// or the place to insert it in key order (nlohmann's dump sorts members). `member` sees every
// other member's key and value text and may refuse the object (false).
struct RvSlot {
  bool ok = false;
  bool replace = false;  // a resourceVersion is there: [replace_from, replace_to)
  size_t replace_from = 0, replace_to = 0;
  size_t insert_at = std::string_view::npos;  // else before the first key after it
  bool insert_first = false;                  // ... which is the first member
  size_t after_value = 1;                     // after the last member (or the '{')
  bool no_members = true;
};

template <typename Member>
RvSlot rv_slot(std::string_view metadata, Member member) {
  namespace js = json_scan;
  RvSlot slot;
  js::Cursor m(metadata);
  bool ok = js::walk_object(
      m,
      [&](std::string_view k) -> std::optional<bool> {
        if (!slot.replace && slot.insert_at == std::string_view::npos && k > "resourceVersion") {
          slot.insert_at = slot.after_value;
          slot.insert_first = slot.no_members;
        }
        size_t value_at = m.next_offset();
        auto v = m.value();
        if (!v) return std::nullopt;
        slot.no_members = false;
        slot.after_value = m.offset();
        if (k == "resourceVersion") {
          if (slot.replace) return std::nullopt;  // a duplicate
          slot.replace = true;
          slot.replace_from = value_at;
          slot.replace_to = slot.after_value;
        } else if (!member(k, *v)) {
          return std::nullopt;
        }
        return false;
      },
      /*to_end=*/true);
  slot.ok = ok;
  return slot;
}

// `text` with the resourceVersion `revision` put in its metadata (at `metadata_at`).
std::string splice_resource_version(std::string_view text, size_t metadata_at, const RvSlot& slot,
                                    int64_t revision) {
  const std::string rv = "\"" + std::to_string(revision) + "\"";
  std::string out;
  out.reserve(text.size() + rv.size() + 20);
  if (slot.replace) {
    out.append(text.substr(0, metadata_at + slot.replace_from));
    out.append(rv);
    out.append(text.substr(metadata_at + slot.replace_to));
    return out;
  }
  const bool at_end = slot.insert_at == std::string_view::npos;
  const size_t at = metadata_at + (at_end ? slot.after_value : slot.insert_at);
  const bool empty = at_end && slot.no_members;
  out.append(text.substr(0, at));
  if (!slot.insert_first && !empty) out += ',';
  out += "\"resourceVersion\":";
  out += rv;
  if (slot.insert_first && !at_end) out += ',';
  out.append(text.substr(at));
  return out;
}

// The members of a serialized object (key and value text, in order) and its metadata's
// text and offset; false when the text is not one object or its metadata is missing,
// duplicated or not an object.
bool scan_top(std::string_view text,
              std::vector<std::pair<std::string_view, std::string_view>>& members,
              std::string_view& metadata, size_t& metadata_at) {
  namespace js = json_scan;
  js::Cursor top(text);
  bool ok = js::walk_object(
      top,
      [&](std::string_view k) -> std::optional<bool> {
        size_t at = top.next_offset();
        auto v = top.value();
        if (!v) return std::nullopt;
        if (k == "metadata") {
          if (!metadata.empty()) return std::nullopt;  // a duplicate: the parser keeps the last
          metadata = *v;
          metadata_at = at;
        }
        members.emplace_back(k, *v);
        return false;
      },
      /*to_end=*/true);
  return ok && top.next_offset() == text.size() && !metadata.empty() && metadata.front() == '{';
}

// The stored object scanned instead of parsed (a tree and a dump cost about ten times as
// much): the top-level members' texts, metadata's members, the selectable fields' values,
// and the JSON with "resourceVersion" spliced into metadata where the encoder's sorted keys
// put it, so that the bytes are those a parse and dump would give. nullopt for anything this
// does not handle in the same way (escaped metadata strings, duplicate or odd members):
// decode_stored parses those. What it skips it does not validate: the store's values are
// what the API server's encoder wrote (a full validation, json::accept, would cost twice
// this scan).
std::optional<CachedObject> scan_cached(const std::string& key, std::string_view text,
                                        int64_t revision) {
  namespace js = json_scan;
  std::vector<std::pair<std::string_view, std::string_view>> members;
  std::string_view metadata;
  size_t metadata_at = 0;
  if (!scan_top(text, members, metadata, metadata_at)) return std::nullopt;
  auto top_member = [&](std::string_view k) -> std::optional<std::string_view> {
    for (auto it = members.rbegin(); it != members.rend(); ++it)
      if (it->first == k) return it->second;
    return std::nullopt;
  };
  auto top_string = [&](std::string_view k) -> std::optional<std::string_view> {
    auto v = top_member(k);
    return v ? plain_contents(*v) : std::optional<std::string_view>("");
  };
  auto api_version = top_string("apiVersion");
  auto kind = top_string("kind");
  if (!api_version || !kind) return std::nullopt;

  CachedObject o;
  o.key = key;
  o.revision = revision;
  // metadata: name, namespace, uid, labels, and where resourceVersion goes.
  std::string_view labels;
  RvSlot slot = rv_slot(metadata, [&](std::string_view k, std::string_view v) {
    std::string* target = k == "name"        ? &o.name
                          : k == "namespace" ? &o.namespace_
                          : k == "uid"       ? &o.uid
                                             : nullptr;
    if (target) {
      auto plain = plain_contents(v);
      if (!plain || !target->empty()) return false;  // escaped, or a duplicate
      *target = *plain;
    } else if (k == "labels") {
      labels = v;
    }
    return true;
  });
  if (!slot.ok) return std::nullopt;
  if (!labels.empty()) {
    json parsed = json::parse(labels, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return std::nullopt;
    if (parsed.is_object()) {
      for (auto& [k, v] : parsed.items()) {
        if (v.is_string()) o.labels.emplace(k, v.get<std::string>());
      }
    }
  }
  auto read_field = [&](std::string_view path) -> std::optional<std::string> {
    size_t dot = path.find('.');
    auto at = top_member(path.substr(0, dot));
    while (at && dot != std::string_view::npos) {
      if (at->empty() || at->front() != '{') return std::string();  // not an object: ""
      size_t next = path.find('.', dot + 1);
      std::string_view part = path.substr(
          dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1);
      // member() fails both on a missing key and a bad text; the text was scanned already.
      at = js::member(*at, part);
      dot = next;
    }
    if (!at) return std::string();
    return selector_text(*at);
  };
  if (!fill_fields(o, *api_version, *kind, read_field)) return std::nullopt;

  // The JSON with metadata.resourceVersion set.
  o.json = PackedText(splice_resource_version(text, metadata_at, slot, revision));
  return o;
}

}  // namespace

std::optional<std::string> with_resource_version(std::string_view text, int64_t revision) {
  std::vector<std::pair<std::string_view, std::string_view>> members;
  std::string_view metadata;
  size_t metadata_at = 0;
  if (!scan_top(text, members, metadata, metadata_at)) return std::nullopt;
  RvSlot slot = rv_slot(metadata, [](std::string_view, std::string_view) { return true; });
  if (!slot.ok) return std::nullopt;
  return splice_resource_version(text, metadata_at, slot, revision);
}

CachedObject make_cached(const std::string& key, json object, int64_t revision) {
  CachedObject o;
  o.key = key;
  o.revision = revision;
  json& meta = object["metadata"];
  meta["resourceVersion"] = std::to_string(revision);
  o.namespace_ = meta.value("namespace", "");
  o.name = meta.value("name", "");
  o.uid = meta.value("uid", "");
  if (auto labels = meta.find("labels"); labels != meta.end() && labels->is_object()) {
    for (auto& [k, v] : labels->items()) {
      if (v.is_string()) o.labels.emplace(k, v.get<std::string>());
    }
  }
  fill_fields(o, object.value("apiVersion", ""), object.value("kind", ""),
              [&](std::string_view path) -> std::optional<std::string> {
                return field_value(object, path);
              });
  o.json = PackedText(object.dump());
  return o;
}

Result<CachedObject> decode_stored(const store::KeyValue& kv) {
  if (auto scanned = scan_cached(kv.key, kv.value, kv.mod_revision)) return std::move(*scanned);
  return parse_stored(kv);
}

Result<CachedObject> parse_stored(const store::KeyValue& kv) {
  json object = json::parse(kv.value, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded() || !object.is_object()) {
    return error(Code::kInternal, "stored object " + kv.key + " is not a JSON object");
  }
  try {
    return make_cached(kv.key, std::move(object), kv.mod_revision);
  } catch (const json::exception& e) {
    // Metadata of the wrong type: the object was not written by us.
    return error(Code::kInternal, "stored object " + kv.key + " has bad metadata: " + e.what());
  }
}

}  // namespace k3c::apiserver
