package olm

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Copier is OLM's copy of an OperatorCondition's spec.conditions to its
// status (CopyConditions) as a controller-runtime Reconciler, with time
// from its clock.
type Copier struct {
	client client.Client
	clock  clock.PassiveClock
	flaw   GateFlaw
}

// NewCopier is a Copier talking through c, with time from clk, and the
// flaw of the olm role's subject (only CopiesStatusOnly changes it).
func NewCopier(c client.Client, clk clock.PassiveClock, flaw GateFlaw) *Copier {
	return &Copier{client: c, clock: clk, flaw: flaw}
}

// Reconcile copies the conditions of the OperatorCondition of req.
func (c *Copier) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	u, err := get(ctx, c.client, OperatorConditionGVK, req.NamespacedName)
	if err != nil || u == nil {
		return reconcile.Result{}, err
	}
	spec, status, err := operatorConditionOf(u)
	if err != nil {
		return reconcile.Result{}, err
	}
	conds, changed := CopyConditions(spec.Conditions, status.Conditions, u.GetGeneration(), c.clock.Now(), c.flaw)
	if !changed {
		return reconcile.Result{}, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&ocStatus{Conditions: conds})
	if err != nil {
		return reconcile.Result{}, err
	}
	if err := unstructured.SetNestedField(u.Object, m["conditions"], "status", "conditions"); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, c.client.Status().Update(ctx, u)
}
