// Protobuf request bodies (application/vnd.kubernetes.protobuf): the whole body with its
// envelope, as the API server decodes it, then the same bytes as a bare message of the
// kind the envelope would have named (so mutations reach the message decoder even when
// they break the envelope).
#include "api/protobuf.h"
#include "fuzz_common.h"

using namespace k3c;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body = fuzz::as_text(data, size);
  auto decoded = api::decode_protobuf(body, fuzz::schemas(), fuzz::registry());
  if (decoded.is_ok()) (void)decoded->object.dump();
  // Past the magic, the bytes as a Pod, a Deployment and a CRD (the deepest schemas).
  std::string_view message = body.substr(std::min(body.size(), api::kProtobufMagic.size()));
  static const api::GroupVersionKind kinds[] = {
      {"", "v1", "Pod"},
      {"apps", "v1", "Deployment"},
      {"apiextensions.k8s.io", "v1", "CustomResourceDefinition"}};
  const auto& kind = kinds[size % 3];
  if (const api::MessageType* type = fuzz::schemas().kind(kind)) {
    auto m = api::decode_protobuf_message(message, *type);
    if (m.is_ok()) (void)m->object.dump();
  }
  return 0;
}
