// Identifiers and timestamps in the forms Kubernetes uses: random (v4) UUIDs for
// metadata.uid, the 5-character suffix of generateName, RFC 3339 timestamps.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace k3c {

// "0b2d5a4e-8f3c-4b1a-9d2e-7c6f5e4d3c2b". Thread-safe.
std::string new_uuid();
// This machine's host name (gethostname), "localhost" when it has none.
std::string host_name();
// Five characters from upstream's alphabet (no vowels, no confusable digits). Thread-safe.
std::string random_name_suffix();
// Restarts this thread's generator of uuids and suffixes from `seed`, so that a test can know
// the suffix the next generateName gets. Tests only.
void seed_this_thread_for_tests(uint64_t seed);
// "2026-11-29T15:04:05Z" (seconds, UTC), as metav1.Time serializes.
std::string rfc3339(std::chrono::system_clock::time_point t);
// "2026-11-29T15:04:05.123456Z" (microseconds), as metav1.MicroTime serializes.
std::string rfc3339_micro(std::chrono::system_clock::time_point t);
// Parses RFC 3339 ("...Z" or "+02:00", optional fractional seconds); nullopt when malformed.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

}  // namespace k3c
