// Table building and the age cells (see table.h); kind printers are in printers_*.cpp.
#include "roles/apiserver/table.h"

#include "core/ids.h"

namespace k3c::apiserver {

using nlohmann::json;

std::string human_duration(std::chrono::seconds d) {
  long long s = d.count();
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return std::to_string(s) + "s";
  long long m = s / 60;
  if (m < 10)
    return s % 60 == 0 ? std::to_string(m) + "m"
                       : std::to_string(m) + "m" + std::to_string(s % 60) + "s";
  if (m < 180) return std::to_string(m) + "m";
  long long h = s / 3600;
  if (h < 8)
    return m % 60 == 0 ? std::to_string(h) + "h"
                       : std::to_string(h) + "h" + std::to_string(m % 60) + "m";
  if (h < 48) return std::to_string(h) + "h";
  if (h < 24 * 8)
    return h % 24 == 0 ? std::to_string(h / 24) + "d"
                       : std::to_string(h / 24) + "d" + std::to_string(h % 24) + "h";
  if (h < 24 * 365 * 2) return std::to_string(h / 24) + "d";
  long long y = h / 24 / 365, days = (h / 24) % 365;
  if (h < 24 * 365 * 8)
    return days == 0 ? std::to_string(y) + "y"
                     : std::to_string(y) + "y" + std::to_string(days) + "d";
  return std::to_string(y) + "y";
}

namespace {

json definitions_of(const std::vector<Column>& columns) {
  json definitions = json::array();
  for (const auto& c : columns) {
    definitions.push_back({{"name", c.name},
                           {"type", c.type},
                           {"format", c.format},
                           {"description", c.description},
                           {"priority", c.priority}});
  }
  return definitions;
}

}  // namespace

Printer::Printer(std::vector<Column> cols, CellsFn cells_fn, ConditionsFn conditions_fn)
    : columns(std::move(cols)),
      cells(std::move(cells_fn)),
      conditions(conditions_fn),
      definitions(definitions_of(columns)) {}

std::string since(const json& timestamp, WallTime now) {
  if (!timestamp.is_string()) return "<unknown>";
  auto t = parse_rfc3339(timestamp.get_ref<const std::string&>());
  if (!t) return "<unknown>";
  return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string age_of(const json& object, WallTime now) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "<unknown>";
  auto ts = meta->find("creationTimestamp");
  return ts == meta->end() ? "<unknown>" : since(*ts, now);
}

json make_table(std::string_view group, std::string_view kind,
                const std::vector<const std::string*>& objects, const std::string& resource_version,
                const std::string& continue_token, const TableOptions& options, WallTime now) {
  return make_table(printer_for(group, kind), objects, resource_version, continue_token, options,
                    now);
}

json make_table(const Printer& p, const std::vector<const std::string*>& objects,
                const std::string& resource_version, const std::string& continue_token,
                const TableOptions& options, WallTime now) {
  json rows = json::array();
  for (const std::string* text : objects) {
    json object = json::parse(*text, nullptr, false);
    if (!object.is_object()) continue;
    json row = {{"cells", p.cells(object, now)}};
    if (p.conditions) {
      json conditions = p.conditions(object);
      if (!conditions.is_null()) row["conditions"] = std::move(conditions);
    }
    if (options.include == IncludeObject::kObject) {
      row["object"] = std::move(object);
    } else if (options.include == IncludeObject::kMetadata) {
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", object["metadata"]}};
    }
    rows.push_back(std::move(row));
  }
  json meta = {{"resourceVersion", resource_version}};
  if (!continue_token.empty()) meta["continue"] = continue_token;
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", std::move(meta)},
          {"columnDefinitions", options.no_headers         ? json()
                                : p.definitions.is_array() ? p.definitions
                                                           : definitions_of(p.columns)},
          {"rows", std::move(rows)}};
}

}  // namespace k3c::apiserver
