// ControllerRevisions, as upstream's controller history: StatefulSets and DaemonSets record
// each pod template they run as a ControllerRevision named <owner>-<hash>, labelled with the
// template's labels and the hash, controlled by the owner, whose .data is the strategic merge
// patch that brings the template back: {"spec":{"template":{...,"$patch":"replace"}}}.
// `kubectl rollout history` prints these and `kubectl rollout undo` patches the owner with
// a revision's .data; the controller then finds that template among its revisions and gives
// it the next revision number (a rollback is a new revision with an old template).
//
// Pure helpers plus the few API calls the history needs; callers hold no state here.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "client/client.h"
#include "client/informer.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

// Upstream's label on every ControllerRevision: the hash in its name.
inline constexpr const char* kRevisionHashLabel = "controller.kubernetes.io/hash";

// The patch recorded for the owner's current spec.template.
json revision_data(const json& owner);
// The owner as it was at `revision`: its template replaced by the recorded one.
json apply_revision(const json& owner, const json& revision);
// The hash of a revision's data (and the collision count, when not zero).
std::string revision_hash(const json& data, int64_t collision_count);
// .revision of a ControllerRevision (0 when missing).
int64_t revision_number(const json& revision);
// The same recorded template (null creationTimestamps in templates mean "unset").
bool same_data(const json& a, const json& b);

struct HistoryOwner {
  const json& owner;
  std::string api_version;  // of the owner: apps/v1
  std::string kind;         // StatefulSet, DaemonSet
};

// The revisions the owner controls (adopting matching orphans, releasing strays), sorted
// by revision number.
Result<std::vector<json>> owned_revisions(client::Client& client, client::Informer& revisions,
                                          const HistoryOwner& owner);

struct UpdateRevision {
  json revision;                // the revision of the owner's current template
  std::vector<json> revisions;  // every owned revision afterwards, sorted by number
  int64_t collision_count = 0;  // for status.collisionCount
};
// Finds the revision of the owner's current template or records one: an equal older revision
// is renumbered to the next number (a rollback); otherwise a new one is created, its name
// from the hash (a name taken by a different template is a collision: the count goes up and
// the hash changes). `hash_label`: a further label that carries the hash on a new revision
// (the DaemonSet's controller-revision-hash).
Result<UpdateRevision> sync_update_revision(client::Client& client, const HistoryOwner& owner,
                                            std::vector<json> revisions, int64_t collision_count,
                                            const std::string& hash_label = "");

// Deletes the oldest revisions not named in `in_use` beyond `limit` of them.
Status truncate_history(client::Client& client, const std::vector<json>& revisions,
                        const std::set<std::string>& in_use, int64_t limit);

}  // namespace k3c::controllers
