// Resource vectors from ResourceLists, and their arithmetic.
#include "roles/scheduler/resources.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/quantity.h"

namespace k3c::scheduler {

int64_t Resources::scalar_value(const std::string& name) const {
  auto it =
      std::lower_bound(scalar.begin(), scalar.end(), name,
                       [](const auto& entry, const std::string& n) { return entry.first < n; });
  return it != scalar.end() && it->first == name ? it->second : 0;
}

void Resources::add_scalar(const std::string& name, int64_t amount) {
  auto it =
      std::lower_bound(scalar.begin(), scalar.end(), name,
                       [](const auto& entry, const std::string& n) { return entry.first < n; });
  if (it != scalar.end() && it->first == name) {
    it->second += amount;
  } else {
    scalar.insert(it, {name, amount});
  }
}

void Resources::add(const Resources& other) {
  milli_cpu += other.milli_cpu;
  memory += other.memory;
  ephemeral_storage += other.ephemeral_storage;
  pods += other.pods;
  for (const auto& [name, amount] : other.scalar) add_scalar(name, amount);
}

void Resources::subtract(const Resources& other) {
  milli_cpu -= other.milli_cpu;
  memory -= other.memory;
  ephemeral_storage -= other.ephemeral_storage;
  pods -= other.pods;
  for (const auto& [name, amount] : other.scalar) add_scalar(name, -amount);
}

void Resources::set_max(const Resources& other) {
  milli_cpu = std::max(milli_cpu, other.milli_cpu);
  memory = std::max(memory, other.memory);
  ephemeral_storage = std::max(ephemeral_storage, other.ephemeral_storage);
  pods = std::max(pods, other.pods);
  for (const auto& [name, amount] : other.scalar) {
    int64_t mine = scalar_value(name);
    if (amount > mine) add_scalar(name, amount - mine);
  }
}

Resources resources_from_list(const nlohmann::json& list) {
  Resources r;
  if (!list.is_object()) return r;
  for (const auto& [name, value] : list.items()) {
    std::optional<api::Quantity> q;
    if (value.is_string()) {
      q = api::Quantity::parse(value.get_ref<const std::string&>());
    } else if (value.is_number_integer()) {
      q = api::Quantity::from_value(value.get<int64_t>());
    }
    if (!q) continue;
    if (name == "cpu") {
      r.milli_cpu = q->milli_value();
    } else if (name == "memory") {
      r.memory = q->value();
    } else if (name == "ephemeral-storage") {
      r.ephemeral_storage = q->value();
    } else if (name == "pods") {
      r.pods = q->value();
    } else {
      r.add_scalar(name, q->value());
    }
  }
  return r;
}

}  // namespace k3c::scheduler
