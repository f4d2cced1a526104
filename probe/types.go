package probe

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Who keeps a Probe (Spec.Manager).
const (
	// ManagerCRDAnnotations: OLM keeps the spec equal to the owned CRDs'
	// condition annotations and aggregates the status (002 §Example Workflow).
	ManagerCRDAnnotations = "crdAnnotations"
	// ManagerOperator: the operator writes the status itself (002 §Writing
	// to the Probe Resource Directly).
	ManagerOperator = "operator"
)

// ConditionUpgradeable is the status condition OLM reads before an upgrade:
// False means the operator must not be upgraded (002 §Design Details).
const ConditionUpgradeable = "Upgradeable"

// Probe communicates an operator's state to OLM through conditions.
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is nil when nobody manages the Probe: then nothing aggregates
	// into its status (002 §Example Workflow note).
	Spec *Spec `json:"spec,omitempty"`
	// Status is what the operator and the aggregator report.
	Status Status `json:"status,omitempty"`
}

// Spec says who keeps the Probe and, for OLM's aggregator, which owned CRDs
// it aggregates with which expressions.
type Spec struct {
	// Manager is ManagerCRDAnnotations or ManagerOperator.
	Manager string `json:"manager,omitempty"`
	// ProbeResources has no omitempty: the seed tells a nil list (the
	// operator may manage the Probe) from an empty one (OLM's, with no
	// annotation left), and an empty list must survive the round trip. A
	// nil one is sent as null, which the API server prunes.
	ProbeResources []Resource `json:"probeResources"`
}

// Resource is one owned CRD the aggregator reads, with the expressions of
// its condition annotations.
type Resource struct {
	// Resource is the CRD's name, e.g. foos.example.com (the seed's first
	// example spells the field so).
	Resource string `json:"resource"`
	// Upgradeable is the olm.operatorframework.io/condition.Upgradeable
	// expression, empty if the CRD has none.
	Upgradeable string `json:"upgradeable,omitempty"`
	// Important is the olm.operatorframework.io/condition.Important
	// expression, empty if the CRD has none.
	Important string `json:"important,omitempty"`
}

// Status is what the aggregator, or the operator, says.
type Status struct {
	// Conditions holds Upgradeable (and, from the aggregator, ProbeValid).
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// ProbeResources lists the CRs that map to an OLM supported condition.
	ProbeResources []ResourceStatus `json:"probeResources,omitempty"`
}

// ResourceStatus is one CR and why it maps to an OLM supported condition
// (the seed's example: kind "foos", reasons ["!Migrating",
// "UnhealthyDatabase", "BadConnectivity"]).
type ResourceStatus struct {
	// Kind is the CRD's plural.
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`              // the CR's
	Namespace string   `json:"namespace"`         // the CR's
	Reasons   []string `json:"reasons,omitempty"` // why it maps: its conditions' reasons, or the failed expression
}

// ProbeList is a list of Probes.
type ProbeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Probe `json:"items"` // the Probes
}
