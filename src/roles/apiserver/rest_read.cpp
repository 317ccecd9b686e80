// GET, LIST and WATCH, served from the watch cache (see rest.h).
#include <charconv>
#include <random>

#include "api/version_conversion.h"
#include "core/base64.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/custom_resource.h"
#include "roles/apiserver/object_codec.h"
#include "roles/apiserver/rest.h"
#include "roles/apiserver/table.h"
#include "roles/apiserver/watch_stream.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// resourceVersion for reads: "" = the latest (wait for the store's current revision),
// "0" = whatever the cache has, N = at least N. nullopt when malformed.
std::optional<int64_t> min_revision(const http::Request& r) {
  auto rv = r.param("resourceVersion");
  if (!rv || rv->empty()) return 0;
  auto n = parse_int(*rv);
  if (!n || *n < 0) return std::nullopt;
  return *n == 0 ? -1 : *n;
}

ApiError bad_resource_version(const http::Request& r) {
  ApiError e = bad_request("invalid resource version: \"" +
                           std::string(r.param("resourceVersion").value_or("")) + "\"");
  return e;
}

std::string prefix_of(const Call& c) {
  std::string p = c.resource.storage_prefix + "/";
  if (c.resource.namespaced && !c.info.namespace_.empty()) p += c.info.namespace_ + "/";
  return p;
}

std::string continue_token(int64_t revision, const std::string& key) {
  json t = {{"v", "meta.k8s.io/v1"}, {"rv", revision}, {"start", key}};
  return base64_encode(t.dump());
}

struct ContinueToken {
  int64_t revision;
  std::string after;
};

std::optional<ContinueToken> parse_continue(std::string_view token, const std::string& prefix) {
  auto raw = base64_decode(token);
  if (!raw) return std::nullopt;
  json t = json::parse(*raw, nullptr, false);
  if (!t.is_object() || !t["rv"].is_number_integer() || !t["start"].is_string())
    return std::nullopt;
  std::string after = t["start"].get<std::string>();
  if (after.rfind(prefix, 0) != 0) return std::nullopt;  // a token for another list
  return ContinueToken{t["rv"].get<int64_t>(), after};
}

std::string list_kind(const api::Resource& r) { return r.kind + "List"; }

IncludeObject include_of(const http::Request& r) {
  auto v = r.param("includeObject").value_or("Metadata");
  if (v == "None") return IncludeObject::kNone;
  if (v == "Object") return IncludeObject::kObject;
  return IncludeObject::kMetadata;
}

// Custom resources print their CRD's columns; built-in kinds their own printers.
const Printer& printer_of(const Call& c) {
  if (c.custom) return *c.custom->printer;
  return printer_for(c.resource.group, c.resource.kind);
}

}  // namespace

ApiResult<Filter> filter_for(const Call& c) {
  Filter f;
  f.prefix = prefix_of(c);
  if (auto ls = c.request.param("labelSelector")) {
    auto parsed = LabelSelector::parse(*ls);
    if (!parsed.is_ok()) return bad_request(parsed.status().message());
    f.labels = std::move(parsed).value();
  }
  if (auto fs = c.request.param("fieldSelector")) {
    auto parsed = FieldSelector::parse(*fs);
    if (!parsed.is_ok()) return bad_request(parsed.status().message());
    for (const auto& r : parsed->requirements()) {
      if (!is_selectable(c.resource.group, c.resource.kind, r.field)) {
        return bad_request("field label not supported: " + r.field);
      }
    }
    f.fields = std::move(parsed).value();
    // metadata.name=X narrows the scan to one key when it is all we need.
  }
  return f;
}

http::Response Rest::get(const Call& c) {
  auto fmt = negotiate_output(c.request);
  if (!fmt.ok()) return error_response(fmt.error());
  auto min = min_revision(c.request);
  if (!min) return error_response(bad_resource_version(c.request));
  auto o = cache_.get(c.resource.storage_key(c.info.namespace_, c.info.name), *min);
  if (!o.is_ok()) {
    if (o.status().code() == Code::kNotFound) {
      return error_response(not_found(c.resource.group, c.resource.plural, c.info.name));
    }
    return error_response(from_status(o.status()));
  }
  if (fmt.value() == OutputFormat::kTable) {
    TableOptions options{include_of(c.request)};
    const std::string object = answer_bytes(c, (*o)->json);
    json t = make_table(printer_of(c), {&object}, std::to_string((*o)->revision), "", options,
                        clock_.wall_now());
    return json_response(200, t.dump());
  }
  return json_response(200, answer_bytes(c, (*o)->json));
}

std::optional<http::Response> Rest::get_if_ready(const Call& c) {
  auto min = min_revision(c.request);
  if (!min || !cache_.has(*min)) return std::nullopt;
  return get(c);
}

http::Response Rest::list(const Call& c) {
  auto fmt = negotiate_output(c.request);
  if (!fmt.ok()) return error_response(fmt.error());
  auto filter = filter_for(c);
  if (!filter.ok()) return error_response(filter.error());
  auto min = min_revision(c.request);
  if (!min) return error_response(bad_resource_version(c.request));
  int64_t limit = 0;
  if (auto l = c.request.param("limit"); l && !l->empty()) {
    auto n = parse_int(*l);
    if (!n || *n < 0)
      return error_response(bad_request("invalid limit: \"" + std::string(*l) + "\""));
    limit = *n;
  }
  std::string after;
  Result<ListSnapshot> snapshot = error(Code::kInternal, "not listed");
  if (auto token = c.request.param("continue"); token && !token->empty()) {
    auto t = parse_continue(*token, filter.value().prefix);
    // A first page is read from the cache, so a token's revision is never past the cache's.
    if (!t || t->revision <= 0 || t->revision > cache_.revision())
      return error_response(bad_request("invalid continue token"));
    if (t->revision == cache_.revision()) {
      snapshot = cache_.list(filter.value(), -1, t->after, limit);
    } else {
      // The cache has moved on: the rest of the list comes from the store's history at the
      // first page's revision (as etcd serves it), until compaction removes that revision.
      snapshot = list_at(filter.value(), t->revision, t->after, limit);
      if (!snapshot.is_ok() && snapshot.status().code() == Code::kCompacted) {
        return error_response(api_error(
            Code::kGone,
            "The provided continue parameter is too old to display a consistent list "
            "result. You can start a new list without the continue parameter, or use the "
            "continue token in this response to retrieve the remainder of the results."));
      }
    }
  } else {
    snapshot = cache_.list(filter.value(), *min, after, limit);
  }
  if (!snapshot.is_ok()) return error_response(from_status(snapshot.status()));
  const ListSnapshot& s = *snapshot;
  std::string next = s.next_key.empty() ? "" : continue_token(s.revision, s.next_key);
  // Objects stored in another version than the call's are converted; others are written
  // out as the cached bytes they are.
  std::vector<std::string> converted;  // "" where the cached bytes serve as they are
  if (converts(c)) {
    converted.resize(s.items.size());
    for (size_t i = 0; i < s.items.size(); ++i) {
      if (api::may_need_conversion(s.items[i]->json, c.resource.group_version()))
        converted[i] = answer_bytes(c, s.items[i]->json);
    }
  }
  auto item = [&](size_t i) -> const std::string& {
    return converted.empty() || converted[i].empty() ? s.items[i]->json : converted[i];
  };
  if (fmt.value() == OutputFormat::kTable) {
    std::vector<const std::string*> objects;
    objects.reserve(s.items.size());
    for (size_t i = 0; i < s.items.size(); ++i) objects.push_back(&item(i));
    TableOptions options{include_of(c.request)};
    json t = make_table(printer_of(c), objects, std::to_string(s.revision), next, options,
                        clock_.wall_now());
    return json_response(200, t.dump());
  }
  // The items are the cached bytes, written out as they are.
  json meta = {{"resourceVersion", std::to_string(s.revision)}};
  if (!next.empty()) {
    meta["continue"] = next;
    if (filter.value().labels.empty() && filter.value().fields.empty() && s.remaining >= 0) {
      meta["remainingItemCount"] = s.remaining;
    }
  }
  std::string body = R"({"kind":")" + list_kind(c.resource) + R"(","apiVersion":")" +
                     c.resource.group_version() + R"(","metadata":)" + meta.dump() +
                     R"(,"items":[)";
  size_t total = body.size() + 2;
  for (size_t i = 0; i < s.items.size(); ++i) total += item(i).size() + 1;
  body.reserve(total);
  for (size_t i = 0; i < s.items.size(); ++i) {
    if (i) body += ',';
    body += item(i);
  }
  body += "]}";
  return json_response(200, std::move(body));
}

Result<ListSnapshot> Rest::list_at(const Filter& filter, int64_t revision,
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
      auto decoded = decode_stored(kv);
      if (!decoded.is_ok()) return decoded.status();
      if (!filter.matches(*decoded)) continue;
      if (limit > 0 && static_cast<int64_t>(out.items.size()) == limit) {
        out.next_key = out.items.back()->key;  // one more matches: the page is cut here
        return out;
      }
      out.items.push_back(std::make_shared<const CachedObject>(std::move(*decoded)));
    }
    if (!page->more || page->items.empty()) return out;
    o.after = page->items.back().key;
  }
}

http::Response Rest::watch(const Call& c) {
  auto fmt = negotiate_output(c.request);
  if (!fmt.ok()) return error_response(fmt.error());
  auto filter = filter_for(c);
  if (!filter.ok()) return error_response(filter.error());
  auto rv = c.request.param("resourceVersion").value_or("");
  int64_t from = 0;
  if (!rv.empty()) {
    auto n = parse_int(rv);
    if (!n || *n < 0) return error_response(bad_resource_version(c.request));
    from = *n;
  } else {
    // Unset: start at the latest state (consistent), with the current objects first.
    Status caught_up = cache_.wait_for(0);
    if (!caught_up.is_ok()) return error_response(from_status(caught_up));
  }
  WatchStreamOptions o;
  o.api_version = c.resource.group_version();
  o.kind = c.resource.kind;
  o.group = c.resource.group;
  o.table = fmt.value() == OutputFormat::kTable;
  if (c.custom) o.printer = c.custom->printer;
  if (converts(c)) o.convert_to = c.resource.group_version();
  o.include = include_of(c.request);
  o.bookmarks = c.request.param("allowWatchBookmarks").value_or("") == "true";
  o.initial_events_end = c.request.param("sendInitialEvents").value_or("") == "true";
  int64_t timeout_s = 0;
  if (auto t = c.request.param("timeoutSeconds"); t && !t->empty()) {
    auto n = parse_int(*t);
    if (!n || *n < 0)
      return error_response(bad_request("invalid timeoutSeconds: \"" + std::string(*t) + "\""));
    timeout_s = *n;
  }
  if (timeout_s == 0) {
    // Like the apiserver's default: between 30 and 60 minutes, spread so that clients do
    // not all reconnect at once.
    thread_local std::mt19937 rng(std::random_device{}());
    timeout_s = std::uniform_int_distribution<int64_t>(1800, 3600)(rng);
  }
  o.deadline = clock_.now() + std::chrono::seconds(timeout_s);
  http::Response r;
  r.set_header("Content-Type", "application/json");
  r.set_header("Cache-Control", "no-cache, private");
  auto w = cache_.watch(filter.value(), from);
  if (!w.is_ok()) {
    if (w.status().code() != Code::kGone) return error_response(from_status(w.status()));
    // Too old: upstream answers 200 with one ERROR event carrying the 410 Status.
    ApiError e = api_error(Code::kGone, w.status().message());
    r.body = watch_event_line("ERROR", status_body(e).dump());
    return r;
  }
  // The initial-events-end bookmark follows the watch's own synthetic ADDEDs.
  if (from == 0) {
    o.initial_events = (*w)->initial_events();
  } else {
    o.initial_events_end = false;
  }
  r.stream = std::make_shared<WatchStream>(std::move(w).value(), cache_, clock_, std::move(o));
  return r;
}

}  // namespace k3c::apiserver
