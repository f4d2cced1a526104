package stackableoperator

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// sampleClusters is the resource of the product clusters this operator
// manages (the SampleCluster CRD of opcert's fixtures).
var sampleClusters = schema.GroupVersionResource{Group: "samples.opcert.io", Version: "v1alpha1", Resource: "sampleclusters"}

// The ADR's user commands: the operator-command annotation's values that
// pause reconciliation and stop the product.
const (
	commandAnnotation = "operator-command"
	commandPaused     = "Paused"
	commandStopped    = "Stopped"
)

// The workload kinds a role may ask for.
const (
	kindStatefulSet = "StatefulSet"
	kindDeployment  = "Deployment"
	kindDaemonSet   = "DaemonSet"
)

// productCluster is what the operator reads of a SampleCluster.
type productCluster struct {
	namespace, name string
	uid             types.UID
	command         string
	spec            clusterSpec
	conditions      []condition
}

// clusterSpec is a SampleCluster's spec; clusterOperation belongs to
// another operator's dialect and is not read.
type clusterSpec struct {
	Roles []roleSpec `json:"roles"`
	// Broken is set when the product's configuration cannot be rendered.
	Broken string `json:"broken"`
}

type roleSpec struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Replicas int32  `json:"replicas"`
}

// readCluster decodes a SampleCluster from the informer's cache.
func readCluster(u *unstructured.Unstructured) (*productCluster, error) {
	pc := &productCluster{namespace: u.GetNamespace(), name: u.GetName(), uid: u.GetUID(),
		command: u.GetAnnotations()[commandAnnotation]}
	if err := fromMap(u.Object["spec"], &pc.spec); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	if status, ok := u.Object["status"].(map[string]any); ok {
		if err := fromMap(status["conditions"], &pc.conditions); err != nil {
			return nil, fmt.Errorf("status.conditions: %w", err)
		}
	}
	return pc, nil
}

func fromMap(v, out any) error {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// validate refuses a spec the operator cannot turn into workloads: the
// ADR's table is owed only after a reconcile without errors, so such a
// cluster's status is left as it is until the spec is fixed.
func (pc *productCluster) validate() error {
	if pc.spec.Broken != "" {
		return fmt.Errorf("invalid configuration: %s", pc.spec.Broken)
	}
	seen := map[string]bool{}
	for _, r := range pc.spec.Roles {
		switch {
		case r.Name == "":
			return fmt.Errorf("a role has no name")
		case seen[r.Name]:
			return fmt.Errorf("role %s is declared twice", r.Name)
		case r.Kind != kindStatefulSet && r.Kind != kindDeployment && r.Kind != kindDaemonSet:
			return fmt.Errorf("role %s: unsupported kind %q", r.Name, r.Kind)
		case r.Replicas < 0:
			return fmt.Errorf("role %s: negative replicas", r.Name)
		}
		seen[r.Name] = true
	}
	return nil
}

func (pc *productCluster) paused() bool  { return pc.command == commandPaused }
func (pc *productCluster) stopped() bool { return pc.command == commandStopped }

// workloadName is the name of a role's workload, as the CRD documents it.
func (pc *productCluster) workloadName(role string) string { return pc.name + "-" + role }
