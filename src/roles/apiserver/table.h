// Server-side printing: the meta.k8s.io/v1 Table that kubectl renders as its usual columns
// (kubectl has no printers of its own). Columns per kind follow upstream's v1.32 printers
// (names, types, formats, priorities and cell rules); built-in kinds upstream has no printer
// for get its default convertor (Name, Created At); custom resources get Name and Age.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace k3c::apiserver {

struct Column {
  std::string name;
  std::string type;    // string, integer, boolean, date
  std::string format;  // "name" for the name column
  std::string description;
  int priority = 0;  // 1: shown with -o wide only
};

// Wall-clock time, for ages.
using WallTime = std::chrono::system_clock::time_point;

// The columns and the row cells of one kind. The server always fills every column (as
// upstream, which prints "wide"); kubectl drops priority>0 columns unless asked for -o wide.
struct Printer {
  using CellsFn = std::function<std::vector<nlohmann::json>(const nlohmann::json&, WallTime)>;
  using ConditionsFn = nlohmann::json (*)(const nlohmann::json& object);

  Printer() = default;
  Printer(std::vector<Column> columns, CellsFn cells, ConditionsFn conditions = nullptr);

  std::vector<Column> columns;
  // Cells for one object, in column order.
  // Cells for one object, in column order (a plain function for built-in kinds, a closure
  // over the CRD's column paths for custom resources).
  CellsFn cells = nullptr;
  // Row conditions (upstream marks finished pods "Completed"); null for most kinds.
  ConditionsFn conditions = nullptr;
  // `columns` as the Table's columnDefinitions, serialized once (null: made per table).
  nlohmann::json definitions;
};

const Printer& printer_for(std::string_view group, std::string_view kind);

enum class IncludeObject { kNone, kMetadata, kObject };

struct TableOptions {
  IncludeObject include = IncludeObject::kMetadata;
  // Watch events after the first carry `"columnDefinitions": null`, as upstream's watch
  // encoder does (kubectl reuses the columns it already has).
  bool no_headers = false;
};

// Builds a Table from objects (serialized JSON, as the cache holds them).
nlohmann::json make_table(std::string_view group, std::string_view kind,
                          const std::vector<const std::string*>& objects,
                          const std::string& resource_version, const std::string& continue_token,
                          const TableOptions& options, WallTime now);
// The same with a printer made at run time (custom resources' printer columns).
nlohmann::json make_table(const Printer& printer, const std::vector<const std::string*>& objects,
                          const std::string& resource_version, const std::string& continue_token,
                          const TableOptions& options, WallTime now);

// "5s", "3m20s", "2d3h": upstream's human duration for AGE columns.
std::string human_duration(std::chrono::seconds d);
// The age of an object's metadata.creationTimestamp ("<unknown>" when missing).
std::string age_of(const nlohmann::json& object, WallTime now);
// Time since an RFC 3339 timestamp, "<unknown>" when missing or malformed.
std::string since(const nlohmann::json& timestamp, WallTime now);

}  // namespace k3c::apiserver
