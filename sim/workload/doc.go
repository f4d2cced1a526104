// Package workload plays, in virtual time, the parts of a cluster that
// envtest lacks for workloads: the Deployment, DaemonSet and StatefulSet
// controllers of the controller-manager, and a kubelet that starts their
// pods. Its Controller is an actor of the simulator (sim.Actor): it makes
// each workload's pods from its pod template, brings them from Pending to
// Running and Ready after a delay, rolls them when the template changes
// (Deployment: one surged pod at a time, none unavailable; DaemonSet: node
// by node, delete then create; StatefulSet: highest ordinal first), scales
// them, and publishes the workload's status from its pods as the real
// controllers count it (a Deployment's Available and Progressing
// conditions too, with its progress deadline). Every write goes through the run's recording
// client, so pods and workload statuses land on the timeline.
//
// Scenarios inject faults through its methods (Stick, HoldNode, FailPod,
// LosePod, RecoverPod and their undoing): an operand that never gets ready
// at a version, a node that never updates, a pod that fails or whose node
// stops reporting. It names no mechanism: seed 001's operators roll their
// operands over it, and seed 004's statuses follow its pods.
//
// The decisions are pure (plan.go, status.go, conditions.go, life.go:
// pods and now in, actions, statuses and the next instant out); the Controller reads,
// calls them and writes. Pods are the Controller's own: it keeps them in
// memory as it last wrote them, so it reads no list from the API server.
package workload
