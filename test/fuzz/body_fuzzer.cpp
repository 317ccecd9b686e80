// JSON request bodies through the path a create or update takes in the API server
// (roles/apiserver/admission.cpp): the strict decoder with unknown/duplicate field
// detection for the kind the body names, the depth limit, the type check, then defaulting
// and validation, once as a create and once as an update of itself.
#include "api/patch.h"
#include "api/strict_json.h"
#include "api/validation.h"
#include "fuzz_common.h"

using namespace k3c;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  // The kind first, from a plain parse (as the router knows it from the URL).
  nlohmann::json plain = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (plain.is_discarded()) return 0;
  const api::MessageType* type = fuzz::type_of(plain);
  for (bool drop : {false, true}) {
    auto checked = api::parse_checked(text, type, drop);
    if (!checked || api::json_depth(checked->value) > api::kMaxJsonDepth) return 0;
    (void)api::type_mismatch(checked->value, *type);
    (void)api::unknown_fields(checked->value, *type, false);
  }
  if (api::json_depth(plain) > api::kMaxJsonDepth || api::type_mismatch(plain, *type)) return 0;
  nlohmann::json object = plain;
  api::apply_defaults(object, *type);
  (void)api::validate(object, nullptr, *type);
  (void)api::validate(object, &plain, *type);
  return 0;
}
