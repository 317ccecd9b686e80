// k3c_scheduler's interface: scheduling as a pure function over an immutable snapshot.
//
//   Snapshot snapshot;                       // the cache keeps it current from informers
//   snapshot.add_node(*node_from_json(node_json));
//   snapshot.add_pod(*pod_from_json(bound_pod_json));
//   ScheduleResult r = schedule(snapshot, *pod_from_json(pending_pod_json), options);
//   if (!r.scheduled()) {
//     PreemptionResult p = preempt(snapshot, pod, r.diagnosis);
//     message = fit_error_message(snapshot.size(), r.diagnosis, p.message);
//   }
//
// Binding, queueing, retries and evictions live with the caller (the scheduler role).
// doc/scheduler.md describes the plugins, weights and messages.
#pragma once

#include "roles/scheduler/model.h"
#include "roles/scheduler/preemption.h"
#include "roles/scheduler/schedule.h"
#include "roles/scheduler/snapshot.h"
