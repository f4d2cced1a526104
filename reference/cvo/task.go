package cvo

import (
	"path/filepath"
	"sort"

	configv1 "github.com/openshift/api/config/v1"
)

// Task is one manifest of the release payload, in sweep order. The adapter
// builds the tasks from the payload; the core never reads files.
type Task struct {
	// Index is the task's position in State.Tasks; Refused names the
	// refused task by it.
	Index int
	// File is the manifest's file name in the payload, for messages.
	File string
	// Kind, Namespace and Name identify the object the manifest holds.
	Kind, Namespace, Name string
	// ClusterOperator marks a ClusterOperator manifest: the version operator
	// does not create it but waits for the live object of that Name
	// (001 §How ClusterVersionOperator handles ClusterOperator in release image).
	ClusterOperator bool
	// Versions are the manifest's status.versions: every name/version pair
	// must be matched by the live object, not only "operator"
	// (docs/upstream.md, seed 001).
	Versions []configv1.OperandVersion
	// Operator is the Deployment that reports this ClusterOperator, nil
	// when the adapter found none.
	Operator *Ref
}

// Ref names the Deployment that runs a ClusterOperator's operator.
type Ref struct {
	// Index is the Deployment's task index in the payload, -1 when the
	// payload does not hold it (it may still be on the cluster).
	Index int
	// File is the Deployment's manifest file, empty when not in the payload.
	File string
	// Namespace and Name are the Deployment's.
	Namespace, Name string
}

func (r Ref) key() string { return r.Namespace + "/" + r.Name }

// Swept splits a payload directory's file names into those the version
// operator sweeps, in the order it sweeps them, and those it ignores. Only
// .yaml, .yml and .json files are swept, like kubectl create -f DIR, in
// alphabetical (byte) order (001 §How ClusterVersionOperator handles
// ClusterOperator in release image, and its NOTE); the extension is matched
// as written, as the upstream does.
func Swept(names []string) (swept, ignored []string) {
	for _, n := range names {
		switch filepath.Ext(n) {
		case ".yaml", ".yml", ".json":
			swept = append(swept, n)
		default:
			ignored = append(ignored, n)
		}
	}
	sort.Strings(swept)
	sort.Strings(ignored)
	return swept, ignored
}
