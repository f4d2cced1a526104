package stackable

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	ref "github.com/opcert/opcert/reference/stackable"
)

// Library mode: a team's Go reconciler (conformance.Reconciler, package
// certify) plays the operator role in virtual time, as the reference
// does: one instance (Instance.Name "") reconciles every SampleCluster of
// the scenario, built again at each restartOperator.
//
// It is driven as a controller-runtime controller For(SampleCluster) that
// Owns its workloads would be: a request per SampleCluster (namespace and
// name, the scenario's), one for each cluster when it starts (an
// informer's first list), and one whenever the cluster changes, or a
// workload or pod of it does. A workload or pod is the cluster's that
// its controller owner reference names, or else its
// app.kubernetes.io/instance label (the timeline contract ties them by
// that label, and the scenarios' pod faults find a role's pods by it and
// app.kubernetes.io/component).

// teamOperator is a team's reconciler with the requests the harness gives
// it.
type teamOperator struct {
	reconcile.Reconciler
	namespaces []string
	clusters   []reconcile.Request
}

// newTeamOperator builds the team's reconciler on c for the world's
// clusters.
func (w *world) newTeamOperator(c client.Client, r conformance.Reconciler) (operator, error) {
	rec, err := r.New(conformance.Instance{Client: c, Clock: w.st.Sched.Clock()})
	if err != nil {
		return nil, err
	}
	t := &teamOperator{Reconciler: rec, namespaces: w.spec.namespaces()}
	for _, cl := range w.spec.clusters() {
		t.clusters = append(t.clusters, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cl.namespace(), Name: cl.Name}})
	}
	return t, nil
}

// Initial asks for every cluster of the scenario.
func (t *teamOperator) Initial() []reconcile.Request { return slices.Clone(t.clusters) }

// Map asks for the cluster an object is or belongs to: a SampleCluster
// itself, a workload or pod the cluster its controller owner reference
// names, or else the one its instance label names; nothing outside the
// scenario's namespaces.
func (t *teamOperator) Map(_ context.Context, obj client.Object) []reconcile.Request {
	if !slices.Contains(t.namespaces, obj.GetNamespace()) {
		return nil
	}
	name := obj.GetLabels()[ref.LabelInstance]
	switch owner := metav1.GetControllerOf(obj); {
	case obj.GetObjectKind().GroupVersionKind() == SampleClusterGVK:
		name = obj.GetName()
	case owner != nil && owner.Kind == SampleClusterGVK.Kind && owner.APIVersion == SampleClusterGVK.GroupVersion().String():
		name = owner.Name
	}
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}}}
}
