// YAML request bodies and manifests (Content-Type application/yaml and apply-patch+yaml):
// YAML to JSON for one document and for a stream of them.
#include "core/yaml_json.h"
#include "fuzz_common.h"

using namespace k3c;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  auto one = yaml_to_json(text);
  if (one.is_ok()) (void)one->dump();
  auto many = yaml_documents_to_json(text);
  if (many.is_ok()) {
    for (const auto& doc : *many) (void)doc.dump();
  }
  return 0;
}
