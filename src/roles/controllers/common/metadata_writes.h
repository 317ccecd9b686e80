// Metadata changes to objects read from an informer: ownerReferences (adopting, releasing,
// orphaning, dangling references), finalizers, labels. They are written as a JSON merge
// patch of the changed metadata members with the cached object's resourceVersion as a
// precondition (409 Conflict when the object changed since, as an update of the whole object
// would give), never as a PUT of the cached object: informers may cache objects trimmed
// (client/cache_transforms.h), and a PUT would drop or be refused for what was trimmed.
// Upstream's ControllerRefManager and garbage collector also patch.
#pragma once

#include <nlohmann/json.hpp>

#include "client/client.h"

namespace k3c::controllers {

// `changes`: metadata members and their new values (null removes a member).
Result<nlohmann::json> patch_metadata(client::Client& client, const client::ResourceId& resource,
                                      const nlohmann::json& cached, nlohmann::json changes);

// The ownerReferences of `object` without those to `owner_uid`, null when none is left: the
// change releasing (a controller) and orphaning (the garbage collector) write.
nlohmann::json refs_without(const nlohmann::json& object, const std::string& owner_uid);

}  // namespace k3c::controllers
