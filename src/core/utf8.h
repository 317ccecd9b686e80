// UTF-8 validity, for text that arrives as bytes (protobuf strings, YAML bodies): JSON
// output must be valid UTF-8 (nlohmann's dump throws otherwise), and upstream's decoders
// refuse such input too.
#pragma once

#include <string_view>

namespace k3c {

// Strict: no overlong forms, surrogates or values past U+10FFFF.
bool valid_utf8(std::string_view s);

}  // namespace k3c
