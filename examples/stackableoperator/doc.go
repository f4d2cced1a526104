// Package stackableoperator is a small, real operator of seed 004's
// world: the operator of product clusters (SampleClusters), which owns a
// workload per role of each cluster and publishes the status conditions
// of Stackable's ADR027 (004 §Implementation details) from its workloads'
// replicas and their pods' phases.
//
// What to decide, and how to read and write its world, is
// reference/stackable's (Table, Desired, and Operator, the adapter the
// simulator also runs): this package is what a team adds to run it as a
// process or a Deployment, a controller-runtime manager on the wall
// clock whose cache holds the SampleClusters, workloads and pods of its
// namespaces (all of them when none is given). It is what opcert runs in
// its tests of process mode (cmd/opcert, process_stackable_test.go: one
// process for every cluster of a scenario, told the run's namespaces by
// OPCERT_NAMESPACES) and of cluster mode (cluster_stackable_test.go, the
// Deployment of deploy.yaml, which watches every namespace).
package stackableoperator
