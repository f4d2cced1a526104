package olmoperator

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The channels an operator tells OLM through.
const (
	ChannelCRs               = "crs"
	ChannelProbe             = "probe"
	ChannelOperatorCondition = "operatorcondition"
)

// OperandAnnotation says what a CR's operand does: OperandMigrating while
// a critical process runs.
const (
	OperandAnnotation = "opcert.io/operand"
	OperandMigrating  = "Migrating"
)

// The kinds of OLM's objects it writes.
var (
	ProbeGVK             = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v1alpha1", Kind: "Probe"}
	OperatorConditionGVK = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v2", Kind: "OperatorCondition"}
)

// Options say where the operator is and how it speaks.
type Options struct {
	// Namespace and Name are its own namespace and its CSV's name, which
	// its Probe and its OperatorCondition take.
	Namespace, Name string
	// Kinds are the kinds of its CRs.
	Kinds []schema.GroupVersionKind
	// Namespaces are where its CRs are (empty: every namespace).
	Namespaces []string
	// Channel is how it tells OLM: ChannelCRs (the default), ChannelProbe
	// or ChannelOperatorCondition.
	Channel string
	// Lies reports that nothing migrates (the broken operator).
	Lies bool
}

// Reconciler is the operator's one loop.
type Reconciler struct {
	c    client.Client
	clk  clock.PassiveClock
	opts Options
}

// NewReconciler builds the operator with its client and clock (the only
// time it uses: the lastTransitionTime of what it writes).
func NewReconciler(c client.Client, clk clock.PassiveClock, opts Options) *Reconciler {
	if opts.Channel == "" {
		opts.Channel = ChannelCRs
	}
	return &Reconciler{c: c, clk: clk, opts: opts}
}

// Reconcile reads every CR, writes each one's Migrating condition when it
// speaks through its CRs, and its Probe or OperatorCondition otherwise.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	busy := false
	for _, gvk := range r.opts.Kinds {
		crs, err := r.list(ctx, gvk)
		if err != nil {
			return reconcile.Result{}, err
		}
		for i := range crs {
			cr := &crs[i]
			migrating := cr.GetAnnotations()[OperandAnnotation] == OperandMigrating && !r.opts.Lies
			busy = busy || migrating
			if r.opts.Channel != ChannelCRs {
				continue
			}
			status, reason, message := "False", "Idle", "No migration runs"
			if migrating {
				status, reason, message = "True", "CriticalProcess", "The operand's data is being migrated"
			}
			if err := r.setCondition(ctx, cr, []string{"status", "conditions"}, "Migrating", status, reason, message, true); err != nil {
				return reconcile.Result{}, err
			}
		}
	}
	status, reason, message := "True", "ReadyForUpgrade", "The operator is ready to be upgraded"
	if busy {
		status, reason, message = "False", "MigrationRunning", "An operand is migrating: do not upgrade the operator now"
	}
	key := types.NamespacedName{Namespace: r.opts.Namespace, Name: r.opts.Name}
	switch r.opts.Channel {
	case ChannelProbe:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ProbeGVK)
		if err := r.c.Get(ctx, key, u); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		return reconcile.Result{}, r.setCondition(ctx, u, []string{"status", "conditions"}, "Upgradeable", status, reason, message, true)
	case ChannelOperatorCondition:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(OperatorConditionGVK)
		if err := r.c.Get(ctx, key, u); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		return reconcile.Result{}, r.setCondition(ctx, u, []string{"spec", "conditions"}, "Upgradeable", status, reason, message, false)
	}
	return reconcile.Result{}, nil
}

// list reads the CRs of gvk in its namespaces.
func (r *Reconciler) list(ctx context.Context, gvk schema.GroupVersionKind) ([]unstructured.Unstructured, error) {
	namespaces := r.opts.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	var out []unstructured.Unstructured
	for _, ns := range namespaces {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := r.c.List(ctx, l, client.InNamespace(ns)); err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
		}
		out = append(out, l.Items...)
	}
	return out, nil
}

// setCondition sets one condition at path of u, its lastTransitionTime
// moved only when its status changes, and writes u (its status
// subresource when status says so) if anything changed.
func (r *Reconciler) setCondition(ctx context.Context, u *unstructured.Unstructured, path []string, typ, status, reason, message string, toStatus bool) error {
	list, _, err := unstructured.NestedSlice(u.Object, path...)
	if err != nil {
		return err
	}
	now := r.clk.Now().UTC().Format(time.RFC3339)
	want := map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": now}
	found := false
	for i, x := range list {
		old, ok := x.(map[string]any)
		if !ok || old["type"] != typ {
			continue
		}
		found = true
		if old["status"] == status && old["reason"] == reason && old["message"] == message {
			return nil
		}
		if old["status"] == status && old["lastTransitionTime"] != nil {
			want["lastTransitionTime"] = old["lastTransitionTime"]
		}
		list[i] = want
	}
	if !found {
		list = append(list, want)
	}
	if err := unstructured.SetNestedSlice(u.Object, list, path...); err != nil {
		return err
	}
	if toStatus {
		return r.c.Status().Update(ctx, u)
	}
	return r.c.Update(ctx, u)
}
