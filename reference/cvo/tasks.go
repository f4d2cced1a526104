package cvo

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	// Named apart: the core's tests call a helper payload.
	manifests "github.com/opcert/opcert/payload"
)

// TasksOf turns a payload into the core's tasks, in sweep order, and the
// object each task applies: objects[i] is tasks[i]'s (a ClusterOperator's
// too, though it is never applied). A ClusterOperator task's Operator is
// the Deployment payload.OperatorOf finds; when the manifest names one with
// payload.ReportedByAnnotation that the payload lacks, Operator has Index
// -1 (it may be on the cluster); when none is found, Operator is nil.
//
// A payload the version operator could not sweep whole is an error that
// names every file and line at fault: a document that is no object, an
// object without kind, apiVersion or name, a ClusterOperator whose
// status.versions does not read or whose manifests.ReportedByAnnotation is
// not "<namespace>/<name>". The upstream refuses such a payload
// before applying any of it, and so does this reference.
func TasksOf(p *manifests.Payload) ([]Task, []*unstructured.Unstructured, error) {
	var errs []error
	for _, pr := range p.Problems {
		errs = append(errs, errors.New(pr.String()))
	}
	tasks := make([]Task, len(p.Manifests))
	objects := make([]*unstructured.Unstructured, len(p.Manifests))
	for i, m := range p.Manifests {
		if m.APIVersion == "" || m.Kind == "" || m.Name == "" {
			errs = append(errs, fmt.Errorf("%s:%d: an object needs apiVersion, kind and metadata.name", m.File, m.Line))
		}
		tasks[i] = Task{Index: i, File: m.File, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name}
		objects[i] = m.Object
	}
	for _, co := range p.ClusterOperators() {
		if co.Err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: the ClusterOperator's status does not read: %v", co.File, co.LineOf("status", "versions"), co.Err))
			continue
		}
		// Manifest.Seq is the manifest's place in the sweep, so its task's index.
		t := &tasks[co.Seq]
		t.ClusterOperator, t.Versions = true, co.Versions
		op, err := operatorOf(p, co.Manifest)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", co.File, co.LineOf("metadata", "annotations", manifests.ReportedByAnnotation), err))
		}
		t.Operator = op
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("the payload cannot be swept: %w", errors.Join(errs...))
	}
	return tasks, objects, nil
}

// operatorOf is the Deployment that reports co: the payload's, by its task
// index, or the one co's annotation names outside the payload (Index -1);
// nil when there is none. An annotation that names no Deployment is an
// error: a typo is not papered over by guessing (package payload).
func operatorOf(p *manifests.Payload, co manifests.Manifest) (*Ref, error) {
	if d, ok := p.OperatorOf(co); ok {
		return &Ref{Index: d.Seq, File: d.File, Namespace: d.Namespace, Name: d.Name}, nil
	}
	ref, given, err := manifests.ReportedBy(co)
	if !given || err != nil {
		return nil, err
	}
	return &Ref{Index: -1, Namespace: ref.Namespace, Name: ref.Name}, nil
}
