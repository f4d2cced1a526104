package clusteroperator

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
)

// On a cluster (cluster mode) an operand's pods are the cluster's, and
// stickOperand holds the operand's rollout as the API can (decision
// "Faults on a cluster", conformance/clusteroperator/README.md): from the
// step on, a Deployment is paused (spec.paused: its controller rolls no
// new template out, and its old pods run on) and a DaemonSet's update
// strategy is OnDelete (it replaces no pod of an old template). The
// operand stays at the version its pods run, as one whose new pods never
// get ready does; every rollout of it is held from then on, whatever
// version it rolls to. What the run found is put back at the end (held
// before the version labels are restored), and the report says so with
// the component's Deployment.
//
// holdNode is skipped: a cordoned node still runs a DaemonSet's pods
// (they tolerate it), a taint takes the node out of what the DaemonSet
// wants instead of holding its rollout there, and the scenario's nodes
// are the simulated world's.

// errNodes is why holdNode does not apply on a cluster.
var errNodes = &conformance.Skipped{Reason: "the operator is a Deployment on the cluster, whose nodes are not the scenario's: cordoning a node does not keep a DaemonSet's pods off it (they tolerate it), and a taint takes the node out of what the DaemonSet wants instead of holding its rollout there"}

// heldOperand is an operand whose rollout the run holds, and what it
// found of the field it set.
type heldOperand struct {
	component string
	kind      string
	key       types.NamespacedName
	found     json.RawMessage // spec.paused, or spec.updateStrategy, as found
}

// hold holds the rollout of component's operand on the cluster.
func (p *deploys) hold(ctx context.Context, component, operand string) error {
	var op *Operand
	for _, c := range p.w.spec.Components {
		for i := range c.Operands {
			if c.Name == component && c.Operands[i].Name == operand {
				op = &c.Operands[i]
			}
		}
	}
	if op == nil {
		return fmt.Errorf("component %s has no operand %s", component, operand)
	}
	key := types.NamespacedName{Namespace: p.play.Key(component).Namespace, Name: operand}
	obj, path, set := holding(op.Kind)
	if err := p.w.st.API.Get(ctx, key, obj); apierrors.IsNotFound(err) {
		return &conformance.Skipped{Reason: fmt.Sprintf("%s %s is not on the cluster yet (its operator makes it): opcert holds the rollout of an operand that exists", op.Kind, key)}
	} else if err != nil {
		return err
	}
	found, err := json.Marshal(path(obj))
	if err != nil {
		return err
	}
	p.mu.Lock()
	if _, seen := p.held[key]; !seen {
		p.held[key] = heldOperand{component: component, kind: op.Kind, key: key, found: found}
	}
	p.mu.Unlock()
	// Through the scenario's recorded client: the timeline has the step's
	// write, and the recorder does not put it down to the operator.
	return p.w.scenario().Patch(ctx, obj, specPatch(set))
}

// holding is an empty operand of kind, what of it the run sets, and the
// value that holds its rollout.
func holding(kind string) (client.Object, func(client.Object) any, any) {
	if kind == DaemonSetGVK.Kind {
		return &appsv1.DaemonSet{}, func(o client.Object) any { return o.(*appsv1.DaemonSet).Spec.UpdateStrategy },
			map[string]any{"type": appsv1.OnDeleteDaemonSetStrategyType, "rollingUpdate": nil}
	}
	return &appsv1.Deployment{}, func(o client.Object) any { return o.(*appsv1.Deployment).Spec.Paused }, true
}

// specPatch is a merge patch of the field holding reads: spec.paused, or
// spec.updateStrategy.
func specPatch(v any) client.Patch {
	field := "paused"
	if _, ok := v.(bool); !ok {
		field = "updateStrategy"
	}
	data, _ := json.Marshal(map[string]any{"spec": map[string]any{field: v}})
	return client.RawPatch(types.MergePatchType, data)
}

// release puts back what hold found, once the run's context is gone;
// the caller holds p.mu.
func (p *deploys) release(ctx context.Context) {
	for _, h := range p.held {
		obj, _, _ := holding(h.kind)
		obj.SetNamespace(h.key.Namespace)
		obj.SetName(h.key.Name)
		var found any
		_ = json.Unmarshal(h.found, &found)
		note := fmt.Sprintf("operand %s %s: the rollout the run held put back as found (%s %s)", h.kind, h.key, heldField(h.kind), h.found)
		if err := p.w.st.API.Patch(ctx, obj, specPatch(found)); err != nil && !apierrors.IsNotFound(err) {
			note = fmt.Sprintf("operand %s %s: its %s NOT put back to %s: %v", h.kind, h.key, heldField(h.kind), h.found, err)
		}
		p.play.Note(h.component, note)
	}
}

func heldField(kind string) string {
	if kind == DaemonSetGVK.Kind {
		return "spec.updateStrategy"
	}
	return "spec.paused"
}
