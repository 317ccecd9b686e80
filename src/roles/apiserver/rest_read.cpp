// GET, LIST and WATCH, served from the watch cache (see rest.h).
#include <charconv>
#include <random>

#include "api/version_conversion.h"
#include "core/base64.h"
#include "core/go_format.h"
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

// A resourceVersion as upstream's versioner parses it (strconv.ParseUint; "" is 0), or its
// field error: `resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid
// syntax`. Values past int64 (no store gets there) are clamped.
std::variant<int64_t, std::string> parse_resource_version(std::string_view rv) {
  uint64_t v = 0;
  for (char ch : rv) {
    const uint64_t digit = static_cast<uint64_t>(ch - '0');
    const char* why = nullptr;
    if (ch < '0' || ch > '9') {
      why = "invalid syntax";
    } else if (v > (UINT64_MAX - digit) / 10) {
      why = "value out of range";  // Go stops at the first digit that overflows
    }
    if (why) {
      const std::string quoted = go_quote(std::string(rv));
      return "resourceVersion: Invalid value: " + quoted + ": strconv.ParseUint: parsing " +
             quoted + ": " + why;
    }
    v = v * 10 + digit;
  }
  return static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
}

// resourceVersion for reads from the cache: "" = the latest (wait for the store's current
// revision), "0" = whatever the cache has, N = at least N. A malformed one is the cache's
// parse error, which upstream passes on unconverted (500, no reason).
ApiResult<int64_t> min_revision(const http::Request& r) {
  auto rv = r.param("resourceVersion");
  if (!rv || rv->empty()) return int64_t{0};
  auto n = parse_resource_version(*rv);
  if (auto* e = std::get_if<std::string>(&n)) return unconverted_error(*e);
  return std::get<int64_t>(n) == 0 ? int64_t{-1} : std::get<int64_t>(n);
}

// Upstream's ValidateListOptions: what resourceVersionMatch and sendInitialEvents allow on a
// list or a watch; every problem in one 422 `ListOptions.meta.k8s.io "" is invalid: ...`.
std::optional<ApiError> list_options_error(const http::Request& r, bool watch) {
  const std::string match(r.param("resourceVersionMatch").value_or(""));
  const bool has_rv = !r.param("resourceVersion").value_or("").empty();
  const bool has_continue = !r.param("continue").value_or("").empty();
  const bool send_initial = !r.param("sendInitialEvents").value_or("").empty();
  std::vector<StatusCause> causes;
  auto forbidden = [&](const char* field, const std::string& why) {
    causes.push_back({"FieldValueForbidden", "Forbidden: " + why, field});
  };
  auto unsupported = [&](const char* supported) {
    causes.push_back({"FieldValueNotSupported",
                      "Unsupported value: " + go_quote(match) + ": supported values: " + supported,
                      "resourceVersionMatch"});
  };
  if (watch) {
    if (send_initial && match != "NotOlderThan") {
      forbidden("resourceVersionMatch",
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
    }
    if (!match.empty()) {
      if (!send_initial) {
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                  "provided");
      }
      if (match != "NotOlderThan") unsupported("\"NotOlderThan\"");
      if (has_continue)
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch is forbidden when continue is provided");
    }
  } else {
    if (!match.empty()) {
      if (!has_rv) {
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch is forbidden unless resourceVersion is provided");
      }
      if (has_continue)
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch is forbidden when continue is provided");
      if (match != "Exact" && match != "NotOlderThan")
        unsupported("\"Exact\", \"NotOlderThan\", \"\"");
      if (match == "Exact" && r.param("resourceVersion").value_or("") == "0") {
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
      }
    }
    if (send_initial) forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list");
  }
  if (causes.empty()) return std::nullopt;
  return invalid("meta.k8s.io", "ListOptions", "", std::move(causes));
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
  if (!min.ok()) return error_response(min.error());
  auto o = cache_.get(c.resource.storage_key(c.info.namespace_, c.info.name), min.value());
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
  if (!min.ok() || !cache_.has(min.value())) return std::nullopt;
  return get(c);
}

http::Response Rest::list(const Call& c) {
  auto fmt = negotiate_output(c.request);
  if (!fmt.ok()) return error_response(fmt.error());
  auto filter = filter_for(c);
  if (!filter.ok()) return error_response(filter.error());
  if (auto e = list_options_error(c.request, /*watch=*/false)) return error_response(*e);
  int64_t limit = 0;
  if (auto l = c.request.param("limit"); l && !l->empty()) {
    auto n = parse_int(*l);
    if (!n || *n < 0)
      return error_response(bad_request("invalid limit: \"" + std::string(*l) + "\""));
    limit = *n;
  }
  auto snapshot = list_snapshot(c, filter.value(), limit);
  if (!snapshot.ok()) return error_response(snapshot.error());
  return list_answer(c, fmt.value(), filter.value(), snapshot.value());
}

ApiResult<ListSnapshot> Rest::list_snapshot(const Call& c, const Filter& filter, int64_t limit) {
  const std::string rv(c.request.param("resourceVersion").value_or(""));
  const std::string match(c.request.param("resourceVersionMatch").value_or(""));
  Result<ListSnapshot> snapshot = error(Code::kInternal, "not listed");
  if (auto token = c.request.param("continue"); token && !token->empty()) {
    auto t = parse_continue(*token, filter.prefix);
    // A first page is read from the cache, so a token's revision is never past the cache's.
    if (!t || t->revision <= 0 || t->revision > cache_.revision())
      return bad_request("invalid continue token");
    if (!rv.empty() && rv != "0")
      return bad_request("specifying resource version is not allowed when using continue");
    if (t->revision == cache_.revision()) {
      snapshot = cache_.list(filter, -1, t->after, limit);
    } else {
      // The cache has moved on: the rest of the list comes from the store's history at the
      // first page's revision (as etcd serves it), until compaction removes that revision.
      snapshot = cache_.list_at(filter, t->revision, t->after, limit);
      if (!snapshot.is_ok() && snapshot.status().code() == Code::kCompacted) {
        return api_error(
            Code::kGone,
            "The provided continue parameter is too old to display a consistent list "
            "result. You can start a new list without the continue parameter, or use the "
            "continue token in this response to retrieve the remainder of the results.");
      }
    }
    if (!snapshot.is_ok()) return from_status(snapshot.status());
    return std::move(snapshot).value();
  }
  // Upstream reads resourceVersionMatch=Exact, and a paged list with a resourceVersion (its
  // legacy exact match), from etcd at that revision; every other list from its watch cache,
  // at least as new as asked (NotOlderThan, the default).
  const bool exact = match == "Exact" || (match.empty() && limit > 0 && !rv.empty() && rv != "0");
  if (!exact) {
    auto min = min_revision(c.request);
    if (!min.ok()) return min.error();
    snapshot = cache_.list(filter, min.value(), "", limit);
    if (!snapshot.is_ok()) return from_status(snapshot.status());
    return std::move(snapshot).value();
  }
  auto revision = parse_resource_version(rv);
  if (auto* e = std::get_if<std::string>(&revision))
    return bad_request("invalid resource version: " + *e);
  const int64_t at = std::get<int64_t>(revision);
  if (at == cache_.revision()) snapshot = cache_.list(filter, -1, "", limit);
  // The cache may have moved on meanwhile: then the store's history serves it.
  if (!snapshot.is_ok() || snapshot->revision != at)
    snapshot = cache_.list_at(filter, at, "", limit);
  if (snapshot.is_ok()) return std::move(snapshot).value();
  switch (snapshot.status().code()) {
    case Code::kCompacted:
      return api_error(Code::kGone, "The resourceVersion for the provided list is too old.");
    case Code::kFutureRevision:
      // etcd's own error, which upstream passes on as it is.
      return unconverted_error("etcdserver: mvcc: required revision is a future revision");
    default:
      return from_status(snapshot.status());
  }
}

http::Response Rest::list_answer(const Call& c, OutputFormat format, const Filter& filter,
                                 const ListSnapshot& s) {
  std::string next = s.next_key.empty() ? "" : continue_token(s.revision, s.next_key);
  // Objects stored in another version than the call's are converted, and a table reads each
  // item's text; otherwise the cached bytes are unpacked straight into the body.
  std::vector<std::string> texts;
  if (converts(c) || format == OutputFormat::kTable) {
    texts.reserve(s.items.size());
    for (const ObjectPtr& o : s.items) texts.push_back(answer_bytes(c, o->json));
  }
  if (format == OutputFormat::kTable) {
    std::vector<const std::string*> objects;
    objects.reserve(texts.size());
    for (const std::string& text : texts) objects.push_back(&text);
    TableOptions options{include_of(c.request)};
    json t = make_table(printer_of(c), objects, std::to_string(s.revision), next, options,
                        clock_.wall_now());
    return json_response(200, t.dump());
  }
  // The items are the cached bytes, written out as they are.
  json meta = {{"resourceVersion", std::to_string(s.revision)}};
  if (!next.empty()) {
    meta["continue"] = next;
    if (filter.labels.empty() && filter.fields.empty() && s.remaining >= 0) {
      meta["remainingItemCount"] = s.remaining;
    }
  }
  std::string body = R"({"kind":")" + list_kind(c.resource) + R"(","apiVersion":")" +
                     c.resource.group_version() + R"(","metadata":)" + meta.dump() +
                     R"(,"items":[)";
  size_t total = body.size() + 2;
  for (size_t i = 0; i < s.items.size(); ++i) {
    total += (texts.empty() ? s.items[i]->json.size() : texts[i].size()) + 1;
  }
  body.reserve(total);
  for (size_t i = 0; i < s.items.size(); ++i) {
    if (i) body += ',';
    if (texts.empty()) {
      s.items[i]->json.append_to(body);
    } else {
      body += texts[i];
    }
  }
  body += "]}";
  return json_response(200, std::move(body));
}

http::Response Rest::watch(const Call& c) {
  auto fmt = negotiate_output(c.request);
  if (!fmt.ok()) return error_response(fmt.error());
  auto filter = filter_for(c);
  if (!filter.ok()) return error_response(filter.error());
  if (auto e = list_options_error(c.request, /*watch=*/true)) return error_response(*e);
  const bool send_initial = c.request.param("sendInitialEvents").value_or("") == "true";
  auto rv = c.request.param("resourceVersion").value_or("");
  int64_t from = 0;
  if (!rv.empty()) {
    auto n = parse_resource_version(rv);
    // The cache's parse error, passed on unconverted as upstream does.
    if (auto* e = std::get_if<std::string>(&n)) return error_response(unconverted_error(*e));
    from = std::get<int64_t>(n);
  }
  if (rv.empty() || (send_initial && from > 0)) {
    // Unset: start at the latest state (consistent), with the current objects first; with
    // sendInitialEvents, the current objects at a state at least as new as asked.
    Status caught_up = cache_.wait_for(from);
    if (!caught_up.is_ok()) return error_response(from_status(caught_up));
    from = 0;
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
  o.initial_events_end = send_initial;
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
