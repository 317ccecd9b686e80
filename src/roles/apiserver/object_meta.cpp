// Metadata rules on create and update (see object_meta.h).
#include "roles/apiserver/object_meta.h"

#include "core/go_format.h"
#include "core/ids.h"
#include "core/names.h"
#include "roles/apiserver/legacy_scheme.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr size_t kMaxAnnotationBytes = 256 * 1024;

bool is_builtin_group(std::string_view g) {
  return g.empty() || g.find('.') == std::string_view::npos || g.ends_with(".k8s.io");
}

// Names of most resources are DNS-1123 subdomains; a few are DNS labels; RBAC names only
// need to be a valid path segment. Each problem in upstream's words.
std::vector<std::string> name_problems(const api::Resource& r, const std::string& name) {
  if (r.group == "rbac.authorization.k8s.io") {
    if (name == "." || name == ".." || name.find_first_of("/%") != std::string::npos) {
      return {"may not contain '/' or '%' or be '.' or '..'"};
    }
    return {};
  }
  bool label = r.group.empty() && (r.plural == "namespaces" || r.plural == "services");
  return label ? names::dns1123_label_problems(name) : names::dns1123_subdomain_problems(name);
}

// A generateName is a name prefix: a trailing '-' is fine (upstream masks it).
std::vector<std::string> prefix_problems(const api::Resource& r, std::string prefix) {
  if (prefix.size() > 1 && prefix.back() == '-') prefix.back() = 'a';
  return name_problems(r, prefix);
}

// The status a new object starts with, for resources whose status the server owns.
json initial_status(const api::Resource& r) {
  if (r.group.empty()) {
    if (r.plural == "pods") return {{"phase", "Pending"}};
    if (r.plural == "namespaces") return {{"phase", "Active"}};
    if (r.plural == "services") return {{"loadBalancer", json::object()}};
    if (r.plural == "persistentvolumes" || r.plural == "persistentvolumeclaims") {
      return {{"phase", "Pending"}};
    }
  }
  return json::object();
}

bool server_owns_status(const api::Resource& r) {
  if (!r.subresource("status")) return false;
  // Nodes register with their status; CRDs keep what is given.
  return !(r.group.empty() && r.plural == "nodes") && r.group != "apiextensions.k8s.io";
}

// The object's metadata, made an object if it is not one. ObjectMeta's collections are all
// omitempty upstream: an empty one (what removing the last finalizer through a patch leaves)
// is not stored, as the typed round trip upstream does not store it.
json& metadata_of(json& object) {
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  for (const char* field : {"labels", "annotations", "finalizers", "ownerReferences"}) {
    auto it = meta.find(field);
    if (it != meta.end() && (it->is_array() || it->is_object()) && it->empty()) meta.erase(it);
  }
  return meta;
}

std::string meta_string(const json& object, const char* field) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  auto it = meta->find(field);
  return it != meta->end() && it->is_string() ? it->get<std::string>() : "";
}

// Everything but metadata and status: what a generation counts changes of.
json spec_part(const json& object) {
  json copy = object;
  copy.erase("metadata");
  copy.erase("status");
  return copy;
}

// An apiVersion or kind left out (or empty) takes the URL's, as upstream's decoder defaults it.
bool absent(const json& object, const char* field) {
  auto it = object.find(field);
  return it == object.end() || it->is_null() ||
         (it->is_string() && it->get_ref<const std::string&>().empty());
}

// A body of a built-in resource decodes upstream with the legacy scheme (apiVersion
// defaulting to the URL's, kind to the resource's): an apiVersion/kind that scheme does not
// register cannot be decoded; a registered kind that is not the resource's type fails
// converting to it. The same kind in another version of its group converts, and is left to
// the version check.
std::optional<ApiError> undecodable_kind(const json& object, const api::Resource& r,
                                         const api::ResourceRegistry* scheme) {
  if (!scheme || !scheme->find_kind(r.group, r.version, r.kind) || !decoded_by_legacy_scheme(r))
    return std::nullopt;
  const bool no_version = absent(object, "apiVersion");
  const bool no_kind = absent(object, "kind");
  if ((!no_version && !object.at("apiVersion").is_string()) ||
      (!no_kind && !object.at("kind").is_string()))
    return std::nullopt;
  const std::string gv =
      no_version ? r.group_version() : object.at("apiVersion").get<std::string>();
  const std::string k = no_kind ? r.kind : object.at("kind").get<std::string>();
  const size_t slash = gv.find('/');
  const std::string group = slash == std::string::npos ? "" : gv.substr(0, slash);
  const std::string version = slash == std::string::npos ? gv : gv.substr(slash + 1);
  const std::string cannot = k + " in version \"" + version + "\" cannot be handled as a " + r.kind;
  if (!legacy_scheme_knows(*scheme, group, version, k)) {
    return bad_request(cannot + ": no kind \"" + k + "\" is registered for version \"" + gv +
                       "\" in scheme \"" + std::string(kLegacySchemeName) + "\"");
  }
  const std::string into = internal_package(r.group, r.kind);
  if (k == r.kind && internal_package(group, k) == into) return std::nullopt;
  return bad_request(cannot + ": converting (" + version + "." + k + ") to (" + into + "." +
                     r.kind + "): unknown conversion");
}

}  // namespace

bool tracks_generation(const api::Resource& r) {
  static const std::set<std::string, std::less<>> groups = {
      "apps", "batch", "autoscaling", "policy", "networking.k8s.io", "apiextensions.k8s.io"};
  if (!is_builtin_group(r.group)) return true;  // custom resources
  if (r.group == "networking.k8s.io")
    return r.plural == "ingresses" || r.plural == "networkpolicies";
  if (r.group == "apps") return r.plural != "controllerrevisions";
  return groups.count(r.group) > 0;
}

std::optional<ApiError> check_type(json& object, const api::Resource& r,
                                   const api::ResourceRegistry* scheme) {
  if (!object.is_object()) return bad_request("the body of the request is not a JSON object");
  const std::string expected = r.group_version();
  if (auto e = undecodable_kind(object, r, scheme)) return e;
  auto api_version = object.find("apiVersion");
  if (absent(object, "apiVersion")) {
    object["apiVersion"] = expected;
  } else if (!api_version->is_string() || *api_version != expected) {
    return bad_request(
        "the API version in the data (" +
        (api_version->is_string() ? api_version->get<std::string>() : api_version->dump()) +
        ") does not match the expected API version (" + expected + ")");
  }
  auto kind = object.find("kind");
  if (absent(object, "kind")) {
    object["kind"] = r.kind;
  } else if (!kind->is_string() || *kind != r.kind) {
    return bad_request("the kind in the data (" +
                       (kind->is_string() ? kind->get<std::string>() : kind->dump()) +
                       ") does not match the expected kind (" + r.kind + ")");
  }
  auto meta = object.find("metadata");
  if (meta != object.end() && !meta->is_null() && !meta->is_object()) {
    return bad_request("metadata must be an object");
  }
  return std::nullopt;
}

json without_resource_version(json o) {
  auto meta = o.find("metadata");
  if (meta != o.end() && meta->is_object()) meta->erase("resourceVersion");
  return o;
}

std::vector<StatusCause> validate_metadata(const json& object, const api::Resource& r) {
  std::vector<StatusCause> causes;
  const json& meta = object.at("metadata");
  const std::string name = meta_string(object, "name");
  const std::string generate = meta_string(object, "generateName");
  if (!generate.empty()) {
    for (const auto& why : prefix_problems(r, generate)) {
      causes.push_back({"FieldValueInvalid", "Invalid value: \"" + generate + "\": " + why,
                        "metadata.generateName"});
    }
  }
  for (const auto& why : name_problems(r, name)) {
    causes.push_back(
        {"FieldValueInvalid", "Invalid value: \"" + name + "\": " + why, "metadata.name"});
  }
  for (const char* field : {"labels", "annotations"}) {
    auto it = meta.find(field);
    if (it == meta.end() || it->is_null()) continue;
    std::string path = std::string("metadata.") + field;
    if (!it->is_object()) {
      causes.push_back({"FieldValueInvalid", "Invalid value: must be a map of strings", path});
      continue;
    }
    size_t total = 0;
    for (auto& [k, v] : it->items()) {
      for (const auto& why : names::qualified_name_problems(k)) {
        causes.push_back({"FieldValueInvalid", "Invalid value: \"" + k + "\": " + why, path});
      }
      if (!v.is_string()) {
        causes.push_back({"FieldValueInvalid", "Invalid value: " + v.dump() + ": must be a string",
                          path + "." + k});
        continue;
      }
      total += k.size() + v.get<std::string>().size();
      if (std::string_view(field) == "labels") {
        for (const auto& why : names::label_value_problems(v.get<std::string>())) {
          causes.push_back({"FieldValueInvalid",
                            "Invalid value: \"" + v.get<std::string>() + "\": " + why, path});
        }
      }
    }
    if (std::string_view(field) == "annotations" && total > kMaxAnnotationBytes) {
      causes.push_back({"FieldValueTooLong", "Too long: must have at most 262144 bytes", path});
    }
  }
  if (auto f = meta.find("finalizers"); f != meta.end() && !f->is_null()) {
    if (!f->is_array()) {
      causes.push_back(
          {"FieldValueInvalid", "Invalid value: must be a list of strings", "metadata.finalizers"});
    } else {
      for (const auto& v : *f) {
        if (!v.is_string() || !names::validate_qualified_name(v.get<std::string>()).is_ok()) {
          causes.push_back(
              {"FieldValueInvalid",
               "Invalid value: " + v.dump() +
                   ": name part must consist of alphanumeric characters, '-', '_' or '.'",
               "metadata.finalizers"});
        }
      }
    }
  }
  return causes;
}

std::optional<ApiError> prepare_create(json& object, const api::Resource& r,
                                       const RequestInfo& info,
                                       std::chrono::system_clock::time_point now) {
  if (auto e = check_type(object, r)) return e;
  json& meta = metadata_of(object);
  // Namespace: the URL decides; a different one in the body is an error.
  std::string ns = meta_string(object, "namespace");
  if (r.namespaced) {
    if (!ns.empty() && ns != info.namespace_) {
      return bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    meta["namespace"] = info.namespace_;
  } else {
    meta.erase("namespace");
  }
  std::string name = meta_string(object, "name");
  if (name.empty()) {
    std::string generate = meta_string(object, "generateName");
    if (generate.empty()) {
      return invalid(r.group, r.kind, "",
                     {{"FieldValueRequired", "Required value: name or generateName is required",
                       "metadata.name"}});
    }
    name = generate + random_name_suffix();
    meta["name"] = name;
  }
  if (!meta_string(object, "resourceVersion").empty()) {
    return bad_request("resourceVersion should not be set on objects to be created");
  }
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  meta.erase("selfLink");
  meta["uid"] = new_uuid();
  meta["creationTimestamp"] = rfc3339(now);
  if (tracks_generation(r)) {
    meta["generation"] = 1;
  } else {
    meta.erase("generation");
  }
  if (server_owns_status(r)) object["status"] = initial_status(r);
  auto causes = validate_metadata(object, r);
  if (!causes.empty()) return invalid(r.group, r.kind, name, std::move(causes));
  if (r.group.empty() && r.plural == "namespaces") {
    if (!meta["labels"].is_object()) meta["labels"] = json::object();
    meta["labels"]["kubernetes.io/metadata.name"] = name;
    if (!object["spec"].is_object()) object["spec"] = json::object();
    if (!object["spec"].contains("finalizers")) object["spec"]["finalizers"] = {"kubernetes"};
  }
  return std::nullopt;
}

ApiResult<json> prepare_update(json object, const json& old, const api::Resource& r,
                               const RequestInfo& info, NewUid new_uid) {
  if (auto e = check_type(object, r)) return *e;
  json& meta = metadata_of(object);
  std::string name = meta_string(object, "name");
  if (name.empty()) {
    meta["name"] = info.name;
  } else if (name != info.name) {
    return bad_request("the name of the object (" + name +
                       ") does not match the name on the URL (" + info.name + ")");
  }
  std::string ns = meta_string(object, "namespace");
  if (r.namespaced && !ns.empty() && ns != info.namespace_) {
    return bad_request(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  const json& old_meta = old.at("metadata");
  std::string uid = meta_string(object, "uid");
  if (!uid.empty() && uid != old_meta.value("uid", "") && new_uid == NewUid::kImmutable) {
    // Upstream validates metadata twice on update (the common fields, then the kind's own
    // update validation), so the cause comes twice; the message shows it once.
    StatusCause cause{"FieldValueInvalid",
                      "Invalid value: " + go_quote(uid) + ": field is immutable", "metadata.uid"};
    return invalid(r.group, r.kind, info.name, {cause, cause});
  }
  if (!uid.empty() && uid != old_meta.value("uid", "")) {
    // The storage layer's UID precondition, in the words of upstream's StorageError.
    return conflict(
        r.group, r.plural, info.name,
        "StorageError: invalid object, Code: 4, Key: " + r.storage_key(info.namespace_, info.name) +
            ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
            "precondition: " +
            uid + ", UID in object meta: " + old_meta.value("uid", ""));
  }
  // Metadata the server owns stays as it was.
  for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "generation", "namespace"}) {
    if (old_meta.contains(field)) {
      meta[field] = old_meta[field];
    } else {
      meta.erase(field);
    }
  }
  meta.erase("resourceVersion");
  meta.erase("selfLink");
  if (info.subresource == "status" || info.subresource == "approval") {
    // Through /status (and a CSR's /approval) only the status changes: everything else is the old object's. What
    // the client sent is mostly the old object already (a patch applied to it, or a status
    // update of the object it read), so its other members are kept where they equal the old
    // ones (a comparison allocates nothing) and copied from the old object where they differ.
    json status = object.contains("status") ? std::move(object["status"]) : json::object();
    for (auto it = object.begin(); it != object.end();) {
      it = old.contains(it.key()) ? std::next(it) : object.erase(it);
    }
    for (const auto& [k, v] : old.items()) {
      if (k == "status") continue;
      auto mine = object.find(k);
      if (mine == object.end()) {
        object[k] = v;
      } else if (*mine != v) {
        *mine = v;
      }
    }
    object["status"] = std::move(status);
    object["metadata"].erase("resourceVersion");
    return object;
  }
  if (info.subresource == "finalize") {
    // A namespace's /finalize changes only its spec finalizers (the namespace controller
    // removes "kubernetes" once the namespace is empty).
    json result = old;
    json finalizers = json::array();
    if (auto s = object.find("spec"); s != object.end() && s->is_object())
      finalizers = s->value("finalizers", json::array());
    result["spec"]["finalizers"] = finalizers;
    result["metadata"].erase("resourceVersion");
    return result;
  }
  if (server_owns_status(r) || (r.group.empty() && r.plural == "nodes")) {
    if (old.contains("status")) {
      object["status"] = old["status"];
    } else {
      object.erase("status");
    }
  }
  if (tracks_generation(r) && spec_part(object) != spec_part(old)) {
    meta["generation"] = old_meta.value("generation", 0) + 1;
  }
  auto causes = validate_metadata(object, r);
  if (!causes.empty()) return invalid(r.group, r.kind, info.name, std::move(causes));
  return object;
}

}  // namespace k3c::apiserver
