// Defaulting and validation of API objects, driven by their schema (doc/schemas.md): the
// walkers visit an object by its MessageType, into nested messages, list elements and map
// values, applying each field's rules (default, required, enum, format, minimum/maximum,
// immutable) and the small per-type hooks that upstream writes as code (object_hooks.cpp).
// Pure functions over JSON; no I/O.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/field_errors.h"
#include "api/schema.h"

namespace k3c::api {

// Fills in what is absent (or null): first the type's hook (defaults that depend on other
// fields), then each field's `default`, then the same for every nested object. Present
// values are never changed. A value of the wrong JSON type is left alone (and not entered).
void apply_defaults(nlohmann::json& object, const MessageType& type);

// Checks an object against the rules of its type and the types below it, then the hooks.
// `old` is the stored object on update (immutable fields compare against it), null on
// create. Errors carry upstream's paths and words, in the order upstream reports them
// closely enough for kubectl's one-line summary.
FieldErrors validate(const nlohmann::json& object, const nlohmann::json* old,
                     const MessageType& type);

// Code-written defaulting and validation for one type, found by its qualified name
// ("core.v1.PodSpec"). They run wherever the type appears (a PodSpec inside a Pod, a
// Deployment's template, a CronJob's job template), as upstream's defaulters do.
struct TypeHooks {
  void (*defaults)(nlohmann::json& object) = nullptr;
  // `object` is a JSON object; `old` the same object before the update, or null.
  FieldErrors (*validate)(const nlohmann::json& object, const nlohmann::json* old,
                          const std::string& path) = nullptr;
};
const TypeHooks* hooks_for(std::string_view type_name);

// A field by JSON name, looking through inline fields (whose fields sit in the same object).
const Field* find_field(const MessageType& type, std::string_view json_name);

}  // namespace k3c::api
