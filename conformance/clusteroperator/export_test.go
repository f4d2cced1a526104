package clusteroperator

import (
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reference/component"
)

// ReferenceAsTeam is the reference operator as a team's reconciler would
// be given to the operator role (library mode): built from the Instance
// alone, finding the rest by the world's conventions, for the components
// of w.
func ReferenceAsTeam(w *World) conformance.Reconciler {
	return conformance.Reconciler{New: func(in conformance.Instance) (reconcile.Reconciler, error) {
		comp, _ := w.component(in.Name)
		return component.NewOperator(in.Client, in.Clock, operatorOptions(w, comp, nil)), nil
	}}
}
