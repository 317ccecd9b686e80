// Selectors and labels as objects carry them: metav1.LabelSelector (matchLabels +
// matchExpressions) and metadata.labels, turned into core's LabelSelector and Labels.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "core/compact_json.h"
#include "core/selector.h"

namespace k3c::api {

// A metav1.LabelSelector. nullopt for a missing, empty or malformed one: upstream's
// controllers and budgets treat those as selecting nothing, not everything.
std::optional<LabelSelector> label_selector_of(const nlohmann::json& selector);
// A plain map selector (ReplicationController, Service spec.selector); nullopt when empty.
std::optional<LabelSelector> map_selector_of(const nlohmann::json& selector);
// The object's metadata.labels.
Labels labels_of(const nlohmann::json& object);
// Whether `selector` selects the object by its metadata.labels: matches(labels_of(object))
// without copying the labels (controllers ask it of every pod they sync).
bool selects(const LabelSelector& selector, const nlohmann::json& object);
// The same of a compact document's object (core/compact_json.h).
bool selects(const LabelSelector& selector, const cjson::Value& object);

}  // namespace k3c::api
