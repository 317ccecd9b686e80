#include "roles/controllers/common/expectations.h"

namespace k3c::controllers {

namespace {
constexpr auto kTtl = std::chrono::minutes(5);
}

void Expectations::expect(const std::string& key, int creations, int deletions) {
  std::lock_guard lock(mu_);
  entries_[key] = {creations, deletions, clock_.now()};
}

void Expectations::lower(const std::string& key, int creations, int deletions) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  it->second.creations -= creations;
  it->second.deletions -= deletions;
}

bool Expectations::satisfied(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return true;
  const Entry& e = it->second;
  return (e.creations <= 0 && e.deletions <= 0) || clock_.now() - e.at > kTtl;
}

void Expectations::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.erase(key);
}

}  // namespace k3c::controllers
