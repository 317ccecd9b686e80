// PATCH bodies against a stored object: JSON patch, JSON merge patch and strategic merge
// patch (the kind's merge keys from the schemas), as roles/apiserver/rest_write.cpp applies
// them, with the server's depth limit on the decoded patch. An input is the object, a line
// "---patch---", then the patch; without that line the object is an empty Pod.
#include "api/patch.h"
#include "api/strategic_merge.h"
#include "fuzz_common.h"

using namespace k3c;

namespace {

nlohmann::json parse(std::string_view text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  constexpr std::string_view kSeparator = "\n---patch---\n";
  nlohmann::json object = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}};
  std::string_view patch_text = text;
  if (auto at = text.find(kSeparator); at != std::string_view::npos) {
    object = parse(text.substr(0, at));
    patch_text = text.substr(at + kSeparator.size());
  }
  nlohmann::json patch = parse(patch_text);
  if (object.is_discarded() || patch.is_discarded()) return 0;
  // Stored objects come out of the decoder, which bounds their depth too.
  if (api::json_depth(object) > api::kMaxJsonDepth || api::json_depth(patch) > api::kMaxJsonDepth)
    return 0;
  auto applied = api::apply_json_patch(object, patch);
  if (applied.is_ok()) (void)applied->dump();
  (void)api::apply_merge_patch(object, patch).dump();
  if (object.is_object() && patch.is_object()) {
    auto smp = api::apply_strategic_merge_patch(object, patch, fuzz::type_of(object));
    if (smp.is_ok()) (void)smp->dump();
    auto untyped = api::apply_strategic_merge_patch(object, patch, nullptr);
    if (untyped.is_ok()) (void)untyped->dump();
  }
  return 0;
}
