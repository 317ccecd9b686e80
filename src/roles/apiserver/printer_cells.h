// Internal to the printers (printers_*.cpp): reading fields of an object's JSON and the cell
// formats upstream's printers share (label selectors, container lists, "+ N more..." lists),
// plus the column constructors and the per-group registration functions.
#pragma once

#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "roles/apiserver/table.h"

namespace k3c::apiserver::printers {

using nlohmann::json;
using Cells = std::vector<json>;

// The value at a path of object keys, or null.
const json& at(const json& j, std::initializer_list<const char*> path);
// A string field, or `fallback` when missing or not a string.
std::string str(const json& j, std::initializer_list<const char*> path, std::string fallback = "");
// An integer field, or `fallback`.
long long num(const json& j, std::initializer_list<const char*> path, long long fallback = 0);
// A boolean field, or `fallback`.
bool flag(const json& j, std::initializer_list<const char*> path, bool fallback = false);
// Number of entries of an array or object field (0 when missing).
long long count(const json& j, std::initializer_list<const char*> path);

std::string name_of(const json& object);
bool deleting(const json& object);  // metadata.deletionTimestamp is set
std::string lower(std::string s);
std::string join(const std::vector<std::string>& parts, const char* sep = ",");

// labels.FormatLabels: "a=b,c=d" sorted by key, "<none>" when empty.
std::string format_labels(const json& labels);
// A LabelSelector as selector text ("app=web,tier in (a,b),!legacy"), "" for none/empty.
std::string selector_text(const json& selector);
// metav1.FormatLabelSelector: selector_text, or "<none>" when it is empty.
std::string format_label_selector(const json& selector);
// IntOrString as text ("1", "50%").
std::string int_or_string(const json& v);
// A resource quantity as stored ("1Gi").
std::string quantity(const json& v);
// Container names and images of a pod spec, comma-joined.
std::pair<std::string, std::string> containers_images(const json& pod_spec);
// Up to `max` entries joined by ",", then " + N more..."; `empty` when there are none.
std::string list_with_more(const std::vector<std::string>& all, size_t max, const char* empty);

Column name_column();
Column age_column();
Column text(std::string name, std::string description, int priority = 0);
Column integer(std::string name, std::string description, int priority = 0);
Column boolean(std::string name, std::string description, int priority = 0);

using PrinterMap = std::map<std::pair<std::string, std::string>, Printer>;
void add_core_printers(PrinterMap& m);        // core group
void add_workload_printers(PrinterMap& m);    // apps, batch, autoscaling, policy
void add_networking_printers(PrinterMap& m);  // networking, discovery
void add_cluster_printers(PrinterMap& m);     // rbac, storage, admission, scheduling, ...

}  // namespace k3c::apiserver::printers
