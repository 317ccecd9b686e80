// What upstream's kube-apiserver knows when it decodes the body of a built-in resource: its
// "legacy scheme" (pkg/api/legacyscheme), which registers every version of every built-in
// group, served by default or not (apps/v1beta1, extensions/v1beta1, batch/v1beta1...).
// A body whose apiVersion/kind that scheme does not register cannot be decoded at all
// (`no kind "Pod" is registered for version "v2" in scheme "..."`); one it registers decodes
// and then fails converting (another kind) or the version check (the same kind in another
// version). apiextensions.k8s.io (CustomResourceDefinition) lives in another scheme, so its
// bodies and resources are not judged here.
//
// Pure functions over the served registry and a table of the versions upstream registers
// but k3c does not serve; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "api/registry.h"

namespace k3c::apiserver {

// The scheme's name in upstream's decoding errors (the file and line that create it).
inline constexpr std::string_view kLegacySchemeName = "pkg/api/legacyscheme/scheme.go:30";

// Whether upstream decodes the bodies of `resource` with the legacy scheme.
bool decoded_by_legacy_scheme(const api::Resource& resource);

// Whether the legacy scheme registers `kind` in group/version: a kind `served` has there,
// its List, the option kinds every version registers, core v1's own extras, or a kind of a
// version upstream registers without serving it.
bool legacy_scheme_knows(const api::ResourceRegistry& served, std::string_view group,
                         std::string_view version, std::string_view kind);

// The Go package of the internal type a registered kind converts to, as upstream's
// conversion errors name it: core.Pod, apps.Deployment (also for extensions/v1beta1's),
// autoscaling.Scale (every group's Scale), core.Event (events.k8s.io's).
std::string internal_package(std::string_view group, std::string_view kind);

}  // namespace k3c::apiserver
