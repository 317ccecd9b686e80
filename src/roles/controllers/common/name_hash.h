// The short hash controllers put into generated names and labels (pod-template-hash,
// controller-revision-hash): FNV-32a of a text, printed in the alphabet upstream uses for
// such names (no vowels, no confusable digits), so no word is ever spelled by accident.
#pragma once

#include <string>
#include <string_view>

namespace k3c::controllers {

std::string name_hash(std::string_view text);

}  // namespace k3c::controllers
