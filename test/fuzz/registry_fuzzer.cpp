// What a registry or a registries.yaml can hand the registry client: WWW-Authenticate
// headers, token answers, manifests (with index platform selection) and registries.yaml
// (with endpoint resolution for a few references). The first byte picks the parser.
#include <string>
#include <string_view>

#include "runtime/reference.h"
#include "runtime/registry/auth_challenge.h"
#include "runtime/registry/endpoints.h"
#include "runtime/registry/manifest.h"
#include "runtime/registry/registries_config.h"

using namespace k3c::runtime;
using namespace k3c::runtime::registry;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      (void)parse_challenges(text);
      break;
    case 1:
      (void)parse_token_response(text);
      break;
    case 2: {
      auto m = parse_manifest(text, "");
      if (m.is_ok() && m->is_index) (void)select_platform(m->manifests, {"linux", "arm", "v7"});
      break;
    }
    default: {
      auto config = parse_registries(text, "registries.yaml");
      if (!config.is_ok()) break;
      for (const char* ref : {"busybox", "rancher/coredns:1",
                              "127.0.0.1:5000/a/b@sha256:"
                              "0000000000000000000000000000000000"
                              "000000000000000000000000000000"}) {
        auto parsed = parse_reference(ref);
        if (parsed.is_ok()) (void)endpoints_for(*parsed, *config);
      }
    }
  }
  return 0;
}
