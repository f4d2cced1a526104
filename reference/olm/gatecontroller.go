package olm

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// GateOptions configure a Gate.
type GateOptions struct {
	// Namespace is the operator's namespace, where its Upgrades are; ""
	// gates every namespace.
	Namespace string
	// Flaw is "" for the reference.
	Flaw GateFlaw
}

// Gate is OLM's upgrade gate as a controller-runtime Reconciler: for each
// Upgrade not yet Succeeded it reads the Probe, or the OperatorCondition,
// named after the current CSV (the Upgrade's spec.gate says which),
// decides (Decide) and writes the Upgrade's status when the decision
// changes it.
type Gate struct {
	client client.Client
	o      GateOptions
}

// NewGate is a Gate talking through c. It takes a clock like the other
// actors, but no decision of the gate depends on time and its status has
// no time in it.
func NewGate(c client.Client, _ clock.PassiveClock, o GateOptions) *Gate {
	return &Gate{client: c, o: o}
}

// Reconcile decides the Upgrade of req and writes its status.
func (g *Gate) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if g.o.Namespace != "" && req.Namespace != g.o.Namespace {
		return reconcile.Result{}, nil
	}
	u, err := get(ctx, g.client, UpgradeGVK, req.NamespacedName)
	if err != nil || u == nil {
		return reconcile.Result{}, err
	}
	have := upgradeStatusOf(u)
	if have.Phase == PhaseSucceeded {
		return reconcile.Result{}, nil
	}
	up := upgradeOf(u)
	var gated Gated
	from := client.ObjectKey{Namespace: req.Namespace, Name: up.From}
	switch up.Gate {
	case ProfileOperatorCondition:
		if gated.OperatorCondition, err = g.operatorCondition(ctx, from); err != nil {
			return reconcile.Result{}, err
		}
	default:
		p, err := get(ctx, g.client, ProbeGVK, from)
		if err != nil {
			return reconcile.Result{}, err
		}
		if p != nil {
			if gated.Probe, err = probeOf(p); err != nil {
				return reconcile.Result{}, err
			}
		}
	}
	st, err := Decide(up, gated, g.o.Flaw)
	if err != nil || st == have {
		return reconcile.Result{}, err
	}
	u.Object["status"] = map[string]any{"phase": st.Phase, "reason": st.Reason, "message": st.Message}
	return reconcile.Result{}, g.client.Status().Update(ctx, u)
}

// Map is the handler.MapFunc of the gate's watches on Probes and
// OperatorConditions: the Upgrades of obj's namespace, not yet Succeeded,
// whose spec.from is obj's name. A failed list asks for nothing; the next
// change of obj asks again.
func (g *Gate) Map(ctx context.Context, obj client.Object) []reconcile.Request {
	if g.o.Namespace != "" && obj.GetNamespace() != g.o.Namespace {
		return nil
	}
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(UpgradeGVK.GroupVersion().WithKind(UpgradeGVK.Kind + "List"))
	if err := g.client.List(ctx, l, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range l.Items {
		u := &l.Items[i]
		if upgradeOf(u).From == obj.GetName() && upgradeStatusOf(u).Phase != PhaseSucceeded {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(u)})
		}
	}
	return out
}

// operatorCondition reads the OperatorCondition at key; nil when absent.
func (g *Gate) operatorCondition(ctx context.Context, key client.ObjectKey) (*OperatorCondition, error) {
	u, err := get(ctx, g.client, OperatorConditionGVK, key)
	if err != nil || u == nil {
		return nil, err
	}
	spec, status, err := operatorConditionOf(u)
	if err != nil {
		return nil, err
	}
	return &OperatorCondition{Generation: u.GetGeneration(), Overrides: spec.Overrides, Conditions: status.Conditions}, nil
}

// upgradeOf reads an Upgrade's spec.
func upgradeOf(u *unstructured.Unstructured) Upgrade {
	var up Upgrade
	up.From, _, _ = unstructured.NestedString(u.Object, "spec", "from")
	up.To, _, _ = unstructured.NestedString(u.Object, "spec", "to")
	gate, _, _ := unstructured.NestedString(u.Object, "spec", "gate")
	up.Gate = Profile(gate)
	return up
}

// upgradeStatusOf reads an Upgrade's status.
func upgradeStatusOf(u *unstructured.Unstructured) UpgradeStatus {
	var st UpgradeStatus
	st.Phase, _, _ = unstructured.NestedString(u.Object, "status", "phase")
	st.Reason, _, _ = unstructured.NestedString(u.Object, "status", "reason")
	st.Message, _, _ = unstructured.NestedString(u.Object, "status", "message")
	return st
}

// ocSpec and ocStatus are the parts of an OperatorCondition (v2) the gate
// and the copier read.
type ocSpec struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Overrides  []metav1.Condition `json:"overrides,omitempty"`
}

type ocStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// operatorConditionOf reads an OperatorCondition's spec and status.
func operatorConditionOf(u *unstructured.Unstructured) (ocSpec, ocStatus, error) {
	var spec ocSpec
	var status ocStatus
	for field, into := range map[string]any{"spec": &spec, "status": &status} {
		m, _, _ := unstructured.NestedMap(u.Object, field)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, into); err != nil {
			return spec, status, fmt.Errorf("reading OperatorCondition %s/%s: %s: %w", u.GetNamespace(), u.GetName(), field, err)
		}
	}
	return spec, status, nil
}
