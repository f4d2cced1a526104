// Package stackable is seed 004's plug-in (mechanism "stackable"):
// Stackable's ADR027 resource status, the conditions a product cluster's
// operator publishes from its workloads' replicas and pods' phases.
//
// The world (scenario.go): product clusters (SampleCluster, the fixtures'
// sample CRD) in the scenario's namespaces, each with its roles (a
// StatefulSet, Deployment or DaemonSet each), on the scenario's nodes; the
// workload controllers and kubelet are sim/workload's, in virtual time.
// The steps are the pods' faults (failPod, losePod, recoverPod), the
// user's edits (scale, annotate with operator-command, clusterOperation
// for the operator-rs profile, break and fix: a spec the operator cannot
// render), and the operator's death and restart.
//
// The role: operator (reference/stackable's Operator, with its flaws and
// the operator-rs profile), judged by conformance/stackable/rules. A team's
// operator plays it too: a Go reconciler in library mode (library.go,
// package certify), a binary in process mode (processes.go, the pods
// still sim/workload's), or a Deployment on a cluster in cluster mode
// (deployments.go: the cluster's controllers and kubelet run the pods, and
// the pod faults are skipped). A live cluster's clusters, workloads and
// pods are recorded (opcert watch, analyze) as recording.go says, the
// writes of the field managers --stackable-operator-manager names being
// the operator's; the rules judge a recording as it streams past
// (conformance.Streaming.Online).
package stackable
