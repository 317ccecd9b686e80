// What serving one version of a CustomResourceDefinition needs besides its registry entry:
// the structural schema, the table printer from additionalPrinterColumns, the status and
// scale subresources, and whether the CRD is being deleted. Built from the CRD object (its
// spec and the names its status accepted); immutable afterwards and shared between the
// served-API snapshots and watch streams.
//
// Also the CRD's own admission: defaults (singular, listKind, conversion) and the basic
// validation upstream applies (names, group, scope, exactly one storage version, schemas).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/registry.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/table.h"

namespace k3c::apiserver {

inline constexpr std::string_view kCrdGroup = "apiextensions.k8s.io";
inline constexpr std::string_view kCrdCleanupFinalizer =
    "customresourcecleanup.apiextensions.k8s.io";

// The scale subresource's JSON paths, as the CRD gives them (".spec.replicas").
struct ScalePaths {
  std::string spec_replicas;
  std::string status_replicas;
  std::string label_selector;  // may be empty
};

struct CustomResource {
  std::string crd_name;  // "crontabs.stable.example.com"
  api::Resource resource;
  std::string list_kind;
  nlohmann::json schema;  // openAPIV3Schema; null when the version has none
  std::shared_ptr<const Printer> printer;
  bool status = false;  // the status subresource is enabled
  std::optional<ScalePaths> scale;
  bool terminating = false;  // the CRD is being deleted: no creates
};

// One CustomResource per served version of a CRD whose names were accepted (read from
// status.acceptedNames). Empty when the CRD is not (yet) servable.
std::vector<std::shared_ptr<const CustomResource>> custom_resources_of(const nlohmann::json& crd);

// The CRD's defaults (names.singular, names.listKind, conversion) set in place.
void default_crd(nlohmann::json& crd);
// Upstream's static validation of a CRD, the basic rules; empty when valid.
std::vector<StatusCause> validate_crd(const nlohmann::json& crd);

// The table printer of additionalPrinterColumns (Name first; Age when none is declared).
std::shared_ptr<const Printer> printer_of_columns(const nlohmann::json& columns);

// The values a simple JSONPath (".a.b", ".a[0].b", ".a[*].b") selects in `object`.
std::vector<nlohmann::json> eval_json_path(const nlohmann::json& object, std::string_view path);

}  // namespace k3c::apiserver
