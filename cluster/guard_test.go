package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// The guard is cluster mode's last line of safety: whatever asks, it lets
// through only what the run created (labelled, named under its prefix or
// in its namespaces) and what the user allowed.
func newTestGuard(t *testing.T, allowed ...Ref) (*Guard, client.Client) {
	t.Helper()
	rm := meta.NewDefaultRESTMapper(nil)
	rm.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)
	rm.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	rm.Add(configv1.GroupVersion.WithKind("ClusterOperator"), meta.RESTScopeRoot)
	rm.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
	team := []client.Object{
		&configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "etcd"}},
		&configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "dns"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "operators", Name: "etcd-operator"}},
	}
	base := fake.NewClientBuilder().WithScheme(Scheme()).WithRESTMapper(rm).WithObjects(team...).
		WithStatusSubresource(&configv1.ClusterOperator{}).Build()
	policy := KindPolicy{Declared: []schema.GroupKind{configv1.GroupVersion.WithKind("ClusterOperator").GroupKind()}}
	return NewGuard(base, "abc", "opcert-abc", allowed, policy), base
}

func TestGuardCreatesOnlyUnderItsNamesAndLabelsThem(t *testing.T) {
	g, base := newTestGuard(t)
	ctx := context.Background()
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "opcert-abc"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "opcert-abc", Name: "x"}},
		&configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "opcert-abc-01-etcd"}},
	} {
		if err := g.Create(ctx, obj); err != nil {
			t.Fatalf("creating %s: %v", obj.GetName(), err)
		}
		if obj.GetLabels()[RunLabel] != "abc" {
			t.Errorf("%s is not labelled: %v", obj.GetName(), obj.GetLabels())
		}
	}
	for _, tc := range []struct {
		obj  client.Object
		want string
	}{
		{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}}, `namespace "default" was not created by this run`},
		{&configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "kube-apiserver"}}, `named under the run's prefix "opcert-abc"`},
		{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "opcert-abd"}}, `named under the run's prefix`},
	} {
		err := g.Create(ctx, tc.obj)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("creating %s: %v, want Forbidden saying %q", tc.obj.GetName(), err, tc.want)
		}
	}
	// Cleanup deletes what the run created, and nothing else.
	deleted, left := g.Cleanup(5 * time.Second)
	if deleted != 3 || len(left) != 0 {
		t.Errorf("cleanup deleted %d, left %v", deleted, left)
	}
	var cos configv1.ClusterOperatorList
	if err := base.List(ctx, &cos); err != nil || len(cos.Items) != 2 {
		t.Errorf("ClusterOperators after cleanup: %v %v", cos.Items, err)
	}
}

func TestGuardWritesOnlyWhatItCreatedOrWasAllowed(t *testing.T) {
	etcd := Ref{Kind: configv1.GroupVersion.WithKind("ClusterOperator").GroupKind(), Name: "etcd"}
	g, _ := newTestGuard(t, etcd)
	ctx := context.Background()
	get := func(name string) *configv1.ClusterOperator {
		co := &configv1.ClusterOperator{}
		if err := g.Get(ctx, types.NamespacedName{Name: name}, co); err != nil {
			t.Fatal(err)
		}
		return co
	}
	co := get("etcd")
	co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue}}
	if err := g.Status().Update(ctx, co); err != nil {
		t.Errorf("the allowed ClusterOperator: %v", err)
	}
	dns := get("dns")
	for name, write := range map[string]func() error{
		"update":        func() error { return g.Update(ctx, dns) },
		"status update": func() error { return g.Status().Update(ctx, dns) },
		"patch":         func() error { return g.Patch(ctx, dns, client.MergeFrom(dns.DeepCopy())) },
		"delete":        func() error { return g.Delete(ctx, dns) },
		"delete all":    func() error { return g.DeleteAllOf(ctx, &configv1.ClusterOperator{}) },
		"scale": func() error {
			dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "operators", Name: "etcd-operator"}}
			return g.SubResource("scale").Patch(ctx, dep, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":0}}`)))
		},
	} {
		if err := write(); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "opcert (cluster mode) refused") {
			t.Errorf("%s of what opcert did not create: %v, want Forbidden", name, err)
		}
	}
}

// An object the user allowed may be created where the run could not
// create anything else (a step's ConfigMap in the team's namespace); it is
// then the run's, deleted at the end.
func TestGuardCreatesAnAllowedObjectAndDeletesIt(t *testing.T) {
	admin := Ref{Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap").GroupKind(), Namespace: "operators", Name: "etcd-admin"}
	g, base := newTestGuard(t, admin)
	ctx := context.Background()
	for _, tc := range []struct {
		obj     *corev1.ConfigMap
		allowed bool
	}{
		{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "operators", Name: "etcd-admin"}}, true},
		{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "operators", Name: "dns-admin"}}, false},
	} {
		err := g.Create(ctx, tc.obj)
		if tc.allowed && (err != nil || tc.obj.Labels[RunLabel] != "abc") {
			t.Errorf("creating the allowed %s: %v, labels %v", tc.obj.Name, err, tc.obj.Labels)
		}
		if !tc.allowed && !apierrors.IsForbidden(err) {
			t.Errorf("creating %s: %v, want Forbidden", tc.obj.Name, err)
		}
	}
	if deleted, left := g.Cleanup(5 * time.Second); deleted != 1 || len(left) != 0 {
		t.Errorf("cleanup deleted %d, left %v", deleted, left)
	}
	err := base.Get(ctx, types.NamespacedName{Namespace: "operators", Name: "etcd-admin"}, &corev1.ConfigMap{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the created ConfigMap after cleanup: %v, want not found", err)
	}
}
