// The JSON spellings of Kubernetes' special protobuf types that are not plain messages:
// Time and MicroTime (RFC 3339 in UTC, seconds or microseconds) and Duration (Go's
// time.Duration.String(), "1h0m0s").
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace k3c::api::internal {

// "2026-11-29T12:00:00Z" (micro = false; nanos dropped, as metav1.Time does) or
// "2026-11-29T12:00:00.123456Z" (micro = true). kBadRequest outside years 0001-9999.
Result<std::string> format_rfc3339(int64_t seconds, int64_t nanos, bool micro);

// Go's Duration.String(): "0s", "1.5s", "1h0m0s", "-2m3s", "300ms", "1µs", "7ns".
std::string format_go_duration(int64_t nanoseconds);

}  // namespace k3c::api::internal
