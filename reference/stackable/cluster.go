package stackable

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Profile is which operator the reference plays: the seed's, or what
// stackabletech/operator-rs shipped (docs/upstream.md, seed 004).
type Profile string

const (
	// ProfileSeed is 004 §Implementation details read row by row
	// (decision 004, conformance/stackable/README.md), the default.
	ProfileSeed Profile = "seed"
	// ProfileOperatorRS is operator-rs's crates/stackable-operator/src/
	// status/condition/ and cluster_resources.rs: Available from replica
	// counts only, ReconciliationPaused and Stopped from
	// spec.clusterOperation (see operatorrs.go).
	ProfileOperatorRS Profile = "operator-rs"
)

// The annotation and its values that pause and stop a cluster in the seed
// profile (004 §Implementation details, Paused and Stopped rows).
const (
	AnnotationCommand = "operator-command"
	CommandPaused     = "Paused"
	CommandStopped    = "Stopped"
)

// Cluster is what the operator reads of a SampleCluster.
type Cluster struct {
	// Namespace and Name are the SampleCluster's.
	Namespace, Name string
	// UID is the SampleCluster's, which its workloads' owner references carry.
	UID types.UID
	// Command is the operator-command annotation.
	Command string
	// Spec is the SampleCluster's spec as read.
	Spec Spec
}

// Spec is a SampleCluster's spec (fixtures/sampleclusters.crd.yaml).
type Spec struct {
	// Roles are the workloads the cluster asks for, in order; none: nothing to run.
	Roles []Role `json:"roles,omitempty"`
	// ClusterOperation is how an admin pauses or stops the cluster through its spec.
	ClusterOperation ClusterOperation `json:"clusterOperation,omitzero"`
	// Broken, when non-empty, is why the operator cannot render the
	// cluster: its reconcile fails with it.
	Broken string `json:"broken,omitempty"`
}

// Role is one workload the operator owns.
type Role struct {
	// Name is the role's; its workload is named <cluster>-<role>.
	Name string `json:"name"`
	// Kind is the workload's kind (StatefulSet, Deployment or DaemonSet).
	Kind Kind `json:"kind"`
	// Replicas is the workload's spec.replicas; a DaemonSet ignores it.
	Replicas int32 `json:"replicas,omitempty"`
}

// ClusterOperation is operator-rs's spec.clusterOperation
// (commons/cluster_operation.rs).
type ClusterOperation struct {
	// ReconciliationPaused stops the operator changing the cluster's workloads.
	ReconciliationPaused bool `json:"reconciliationPaused,omitempty"`
	// Stopped scales the cluster's workloads to 0 replicas.
	Stopped bool `json:"stopped,omitempty"`
}

// Paused says the operator writes nothing to the cluster's workloads: the
// annotation is Paused (seed), or reconciliationPaused is set
// (operator-rs: cluster_resources.rs's ReconciliationPaused strategy
// only reads).
func (c Cluster) Paused(p Profile) bool {
	if p == ProfileOperatorRS {
		return c.Spec.ClusterOperation.ReconciliationPaused
	}
	return c.Command == CommandPaused
}

// Stopped says the workloads are scaled to 0: the annotation is Stopped
// (seed), or stopped is set and reconciliation not paused (operator-rs:
// pausing takes precedence, cluster_operation.rs).
func (c Cluster) Stopped(p Profile) bool {
	if p == ProfileOperatorRS {
		return c.Spec.ClusterOperation.Stopped && !c.Spec.ClusterOperation.ReconciliationPaused
	}
	return c.Command == CommandStopped
}

// The labels on every owned workload, its selector and its pod template.
const (
	LabelInstance  = "app.kubernetes.io/instance"
	LabelComponent = "app.kubernetes.io/component"
)

// Workload is an owned workload as the operator wants it.
type Workload struct {
	// Kind is the workload's kind.
	Kind Kind
	// Name is <cluster>-<role>.
	Name, Role string
	// Labels are the workload's, its selector's and its pod template's.
	Labels map[string]string
	// Owner makes the SampleCluster the workload's controller.
	Owner metav1.OwnerReference
	// Replicas is nil for a DaemonSet, which has a pod per node.
	Replicas *int32
}

// SampleClusterGVK is the kind of the product cluster
// (fixtures/sampleclusters.crd.yaml).
var SampleClusterGVK = schema.GroupVersionKind{Group: "samples.opcert.io", Version: "v1alpha1", Kind: "SampleCluster"}

// owner is the controller reference to c its workloads carry.
func owner(c Cluster) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: SampleClusterGVK.GroupVersion().String(), Kind: SampleClusterGVK.Kind,
		Name: c.Name, UID: c.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

// ErrBroken is the error of a cluster the operator cannot render: the
// precondition "Reconcile without errors" of 004 §Implementation details
// does not hold.
var ErrBroken = errors.New("cannot render the cluster")

// Desired is the workloads the operator wants for c, one per role in the
// spec's order, named <cluster>-<role> with the instance and component
// labels and the cluster as controller. Stopped (004 §Implementation details, Stopped True: "All
// replicas are set to 0") gives every StatefulSet and Deployment 0
// replicas and no DaemonSet at all: a DaemonSet cannot scale, and
// operator-rs's unreachable node selector needs a scheduler that honours
// it, which opcert's simulated kubelet is not. The error (wrapping
// ErrBroken) is a spec it cannot render: spec.broken, a role without a
// name, a role named twice, a kind it does not own, negative replicas.
func Desired(c Cluster, p Profile) ([]Workload, error) {
	if c.Spec.Broken != "" {
		return nil, fmt.Errorf("%w %s/%s: %s", ErrBroken, c.Namespace, c.Name, c.Spec.Broken)
	}
	stopped := c.Stopped(p)
	seen := map[string]bool{}
	var out []Workload
	for _, r := range c.Spec.Roles {
		switch {
		case r.Name == "":
			return nil, fmt.Errorf("%w %s/%s: a role without a name", ErrBroken, c.Namespace, c.Name)
		case seen[r.Name]:
			return nil, fmt.Errorf("%w %s/%s: role %q given twice", ErrBroken, c.Namespace, c.Name, r.Name)
		case r.Kind != StatefulSet && r.Kind != Deployment && r.Kind != DaemonSet:
			return nil, fmt.Errorf("%w %s/%s: role %q has kind %q, not StatefulSet, Deployment or DaemonSet", ErrBroken, c.Namespace, c.Name, r.Name, r.Kind)
		case r.Replicas < 0:
			return nil, fmt.Errorf("%w %s/%s: role %q has %d replicas", ErrBroken, c.Namespace, c.Name, r.Name, r.Replicas)
		}
		seen[r.Name] = true
		w := Workload{Kind: r.Kind, Name: c.Name + "-" + r.Name, Role: r.Name,
			Labels: map[string]string{LabelInstance: c.Name, LabelComponent: r.Name}, Owner: owner(c)}
		switch {
		case r.Kind == DaemonSet && stopped:
			continue
		case r.Kind == DaemonSet:
		case stopped:
			w.Replicas = new(int32)
		default:
			w.Replicas = &r.Replicas
		}
		out = append(out, w)
	}
	return out, nil
}
