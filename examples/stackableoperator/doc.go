// Package stackableoperator is an operator of product clusters
// (SampleClusters) written the way a team writes one from Stackable's
// ADR027 (opcert's seed 004), with plain client-go and nothing of opcert:
// it owns a StatefulSet, Deployment or DaemonSet per role of each
// cluster and publishes the ADR's conditions (Available, Progressing,
// Degraded, Paused, Stopped) from its workloads' replicas and their
// pods' phases, in its own words and reasons.
//
// How it works: informers on the SampleClusters (dynamic, as
// unstructured), on the workloads and pods it labelled
// app.kubernetes.io/managed-by=example-stackable-operator, one set per
// namespace it serves (every namespace when none is given); every event
// queues its cluster (namespace/name, by the app.kubernetes.io/instance
// label) on a rate-limited workqueue, and a resync queues them all again
// now and then. A worker reads the cluster from the cache, applies its
// workloads (none while the operator-command annotation says Paused, all
// at 0 replicas and no DaemonSet while it says Stopped), and writes its
// status when a condition's status, reason or message changed, with
// lastTransitionTime moved only on a status change and lastProbeTime at
// each write, on the wall clock. A spec it cannot render (spec.broken, a
// role it cannot run) fails the reconcile, retried with back-off, and
// leaves the status alone: the ADR's table holds after a reconcile
// without errors.
//
// Its workloads are named <cluster>-<role>, as the CRD says, and carry
// the instance and component labels (app.kubernetes.io/component=<role>)
// on their pod templates: opcert's scenarios name pods by cluster and
// role through them.
//
// Running it under opcert: in process mode opcert sets KUBECONFIG and
// OPCERT_NAMESPACES (the run's namespaces, also the {namespaces}
// placeholder), which are its defaults:
//
//	opcert run --mechanism stackable --time-scale 0.02 \
//	  --subject stackable.operator=exec:./stackableoperator
//
// (conformance/stackable/README.md says why 0.02, and how stackable-load
// plays).
//
// In cluster mode, deploy.yaml runs it as a Deployment that watches every
// namespace. --ignore-unknown is the careless variant: it takes a pod
// whose phase is Unknown for a running one, so a cluster missing it is
// Available False, not Unknown, which STACKABLE-001 fails.
// --ignore-pause is the careless variant a real cluster can show (phase
// Unknown cannot be made there): it reconciles a paused cluster's
// workloads, which STACKABLE-005 fails.
package stackableoperator
