// Server-side printing: the meta.k8s.io/v1 Table that kubectl renders as its usual columns
// (kubectl has no printers of its own). Columns per kind follow upstream's printers; kinds
// without a printer get Name and Age (or Name, Created At for none at all, as upstream's
// default table convertor).
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
  std::string type;    // string, integer, date, ...
  std::string format;  // "name" for the name column
  std::string description;
  int priority = 0;  // 1: shown with -o wide only
};

// The columns and the row cells of one kind.
struct Printer {
  std::vector<Column> columns;
  // Cells for one object, in column order.
  std::function<std::vector<nlohmann::json>(const nlohmann::json& object,
                                            std::chrono::system_clock::time_point now)>
      cells;
};

const Printer& printer_for(std::string_view group, std::string_view kind);

enum class IncludeObject { kNone, kMetadata, kObject };

// Builds a Table from objects (serialized JSON, as the cache holds them).
nlohmann::json make_table(std::string_view group, std::string_view kind,
                          const std::vector<const std::string*>& objects,
                          const std::string& resource_version, const std::string& continue_token,
                          IncludeObject include, std::chrono::system_clock::time_point now);
// The same with a printer made at run time (custom resources' printer columns).
nlohmann::json make_table(const Printer& printer, const std::vector<const std::string*>& objects,
                          const std::string& resource_version, const std::string& continue_token,
                          IncludeObject include, std::chrono::system_clock::time_point now);

// "5s", "3m20s", "2d3h": upstream's human duration for AGE columns.
std::string human_duration(std::chrono::seconds d);
// The age of an object's metadata.creationTimestamp ("<unknown>" when missing).
std::string age_of(const nlohmann::json& object, std::chrono::system_clock::time_point now);

}  // namespace k3c::apiserver
