// Transforms informers apply before caching (see cache_transforms.h).
#include "client/cache_transforms.h"

#include <set>

namespace k3c::client {

using nlohmann::json;

namespace {

constexpr std::string_view kTokenVolumePrefix = "kube-api-access-";

bool token_volume(const json& volume) {
  if (!volume.is_object() || !volume.contains("projected")) return false;
  auto name = volume.find("name");
  return name != volume.end() && name->is_string() &&
         name->get_ref<const std::string&>().starts_with(kTokenVolumePrefix);
}

// Erases the elements of object[member] (an array) that `drop` selects, and the member when
// it held nothing else.
template <typename Drop>
void erase_from(json& object, const char* member, Drop drop) {
  auto list = object.find(member);
  if (list == object.end() || !list->is_array()) return;
  auto& items = list->get_ref<json::array_t&>();
  if (std::erase_if(items, drop) > 0 && items.empty()) object.erase(list);
}

// Defaults the API server fills in that no controller or scheduler plugin reads (a map
// member is ~130 bytes of a tree; these are about a tenth of a running pod's).
constexpr const char* kUnreadPodFields[] = {"dnsPolicy", "enableServiceLinks", "serviceAccount",
                                            "terminationGracePeriodSeconds"};
constexpr const char* kUnreadContainerFields[] = {"imagePullPolicy", "terminationMessagePath",
                                                  "terminationMessagePolicy"};

void trim_pod(json& pod) {
  if (auto spec = pod.find("spec"); spec != pod.end() && spec->is_object()) {
    for (const char* f : kUnreadPodFields) spec->erase(f);
    if (auto sc = spec->find("securityContext"); sc != spec->end() && sc->empty()) spec->erase(sc);
    for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
      auto containers = spec->find(list);
      if (containers == spec->end() || !containers->is_array()) continue;
      for (json& c : *containers) {
        if (!c.is_object()) continue;
        for (const char* f : kUnreadContainerFields) c.erase(f);
      }
    }
    std::set<std::string, std::less<>> dropped;
    erase_from(*spec, "volumes", [&](const json& v) {
      if (!token_volume(v)) return false;
      dropped.insert(v["name"].get<std::string>());
      return true;
    });
    if (!dropped.empty()) {
      for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
        auto containers = spec->find(list);
        if (containers == spec->end() || !containers->is_array()) continue;
        for (json& c : *containers) {
          if (!c.is_object()) continue;
          erase_from(c, "volumeMounts", [&](const json& m) {
            auto name = m.is_object() ? m.find("name") : m.end();
            return name != m.end() && name->is_string() &&
                   dropped.count(name->get_ref<const std::string&>()) > 0;
          });
        }
      }
    }
  }
  if (auto status = pod.find("status"); status != pod.end() && status->is_object()) {
    // The kubelet writes every condition's lastProbeTime as null.
    if (auto conditions = status->find("conditions");
        conditions != status->end() && conditions->is_array()) {
      for (json& c : *conditions) {
        if (auto probe = c.is_object() ? c.find("lastProbeTime") : c.end();
            probe != c.end() && probe->is_null())
          c.erase(probe);
      }
    }
    for (const char* list :
         {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
      auto statuses = status->find(list);
      if (statuses == status->end() || !statuses->is_array()) continue;
      for (json& s : *statuses) {
        if (!s.is_object()) continue;
        s.erase("containerID");
        s.erase("imageID");
      }
    }
  }
}

bool bound_to(const json& pod, const std::string& node) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  auto name = spec->find("nodeName");
  return name != spec->end() && name->is_string() && name->get_ref<const std::string&>() == node;
}

}  // namespace

CacheTransform control_plane_pods(std::string whole_on_node) {
  return {"control-plane-pods",
          [whole_on_node = std::move(whole_on_node)](json& pod) {
            if (!whole_on_node.empty() && bound_to(pod, whole_on_node)) return false;
            trim_pod(pod);
            return true;
          },
          /*compact=*/true};
}

CacheTransform compact_objects() {
  return {"compact", nullptr, /*compact=*/true, /*recent_trees=*/16};
}

}  // namespace k3c::client
