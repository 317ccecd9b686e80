// Included ahead of every C++ translation unit (see the top CMakeLists.txt), before any
// <nlohmann/json.hpp>.
//
// nlohmann::json leaves some misuse undefined when NDEBUG is set, above all reading a missing
// key through a const object's operator[] (it dereferences end()). Every such case becomes an
// exception here: HTTP handlers answer it with a 500 and reconcile loops retry it, where the
// undefined behaviour read foreign memory and crashed the server at random.
#pragma once

#include <stdexcept>

namespace k3c {
// A function rather than a throw-expression in the macro: the library also checks its
// invariants inside noexcept functions, where a throw-expression draws -Wterminate.
[[noreturn]] inline void json_misuse(const char* condition) {
  throw std::logic_error(std::string("nlohmann::json misuse: ") + condition);
}
}  // namespace k3c

#define JSON_ASSERT(x) ((x) ? static_cast<void>(0) : ::k3c::json_misuse(#x))
