// Package clusteroperator plugs seed 001 (the ClusterOperator contract)
// into the harness: its roles (the cluster-version operator and the
// component operators), the reference, faithful (package faithful) and
// broken subjects, the CO rules
// (conformance/clusteroperator/rules), its scenario kind and built-ins,
// and the world a scenario builds: a release payload per version
// (payload.go), the version operator sweeping it (reference/cvo's adapter,
// asked for upgrades through the ClusterVersion's spec.desiredUpdate), one
// operator per component (reference/component's core, operator.go), and
// the workload controller that plays the kubelet and controller-manager for
// their operands (sim/workload, pods.go). README.md holds the audit of the
// rules against the seed.
//
// The timeline contract the rules read is in rules/doc.go: each
// component's operator writes the ClusterOperator of its name and the
// operands in the namespace of its name; its own Deployment lives in
// "<name>-operator"; pods carry opcert.io/version.
package clusteroperator
