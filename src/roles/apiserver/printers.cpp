// The printer of each kind (see table.h): the per-group printers (printers_*.cpp), upstream's
// default convertor for the built-in kinds it has no printer for, and Name/Age for custom
// resources.
#include "core/ids.h"
#include "roles/apiserver/printer_cells.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;
using namespace printers;

// Upstream's default table convertor: the creation time as an RFC 3339 "date" cell.
Cells created_at_cells(const json& o, WallTime) {
  auto t = parse_rfc3339(str(o, {"metadata", "creationTimestamp"}));
  return {name_of(o), t ? rfc3339(*t) : "0001-01-01T00:00:00Z"};
}

Cells name_age_cells(const json& o, WallTime now) { return {name_of(o), age_of(o, now)}; }

Printer created_at_printer() {
  return {{name_column(), {"Created At", "date", "", "When the object was created.", 0}},
          created_at_cells};
}

const PrinterMap& all_printers() {
  static const PrinterMap table = [] {
    PrinterMap m;
    add_core_printers(m);
    add_workload_printers(m);
    add_networking_printers(m);
    add_cluster_printers(m);
    // Built-in kinds that upstream serves through its default convertor.
    for (const auto& [group, kind] : std::initializer_list<std::pair<const char*, const char*>>{
             {"", "LimitRange"},
             {"rbac.authorization.k8s.io", "Role"},
             {"rbac.authorization.k8s.io", "ClusterRole"},
             {"apiextensions.k8s.io", "CustomResourceDefinition"}}) {
      m[{group, kind}] = created_at_printer();
    }
    return m;
  }();
  return table;
}

}  // namespace

const Printer& printer_for(std::string_view group, std::string_view kind) {
  // Custom resources until their printer columns are served: Name and Age.
  static const Printer generic{{name_column(), age_column()}, name_age_cells};
  const PrinterMap& m = all_printers();
  auto it = m.find({std::string(group), std::string(kind)});
  return it == m.end() ? generic : it->second;
}

}  // namespace k3c::apiserver
