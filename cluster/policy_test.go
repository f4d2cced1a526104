package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// The kinds that change a cluster's security, as a scenario would create
// them (unstructured), each with its scope.
var forbidden = []struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	want       string
}{
	{rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"), false, "RBAC"},
	{rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), false, "RBAC"},
	{rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), true, "RBAC"},
	{rbacv1.SchemeGroupVersion.WithKind("Role"), true, "RBAC"},
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}, false, "admission"},
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"}, false, "admission"},
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy"}, false, "admission"},
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"}, false, "admission"},
	{schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, false, "the API the cluster serves"},
	{schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}, false, "routes part of the cluster's API"},
	{schema.GroupVersionKind{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass"}, false, "preempted"},
	{schema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest"}, false, "credentials"},
	{schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"}, false, "a cluster-scoped kind none of the run's mechanisms creates"},
	{corev1.SchemeGroupVersion.WithKind("PersistentVolume"), false, "a cluster-scoped kind none of the run's mechanisms creates"},
	{corev1.SchemeGroupVersion.WithKind("Pod"), true, "runs pods"},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, true, "runs pods"},
}

// kindGuard is a guard over a fake server that knows the forbidden kinds'
// scopes, with the run's namespace made.
func kindGuard(t *testing.T, policy KindPolicy) (*Guard, client.Client) {
	t.Helper()
	rm := meta.NewDefaultRESTMapper(nil)
	rm.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)
	rm.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	for _, f := range forbidden {
		scope := meta.RESTScopeRoot
		if f.namespaced {
			scope = meta.RESTScopeNamespace
		}
		rm.Add(f.gvk, scope)
	}
	base := fake.NewClientBuilder().WithScheme(Scheme()).WithRESTMapper(rm).Build()
	g := NewGuard(base, "abc", "opcert-abc", nil, policy)
	if err := g.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "opcert-abc"}}); err != nil {
		t.Fatal(err)
	}
	return g, base
}

func forbiddenObject(gvk schema.GroupVersionKind, namespaced bool) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetName("opcert-abc-01-x") // under the run's prefix: names are not what stops it
	if namespaced {
		u.SetNamespace("opcert-abc") // the run's own namespace
	}
	return u
}

// Every kind that changes the cluster's security is refused, named as the
// run names its objects and in its own namespace, before it reaches the
// server; a ConfigMap in the run's namespace is not.
func TestGuardRefusesKindsThatChangeTheClustersSecurity(t *testing.T) {
	g, base := kindGuard(t, KindPolicy{})
	ctx := context.Background()
	for _, f := range forbidden {
		err := g.Create(ctx, forbiddenObject(f.gvk, f.namespaced))
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), f.want) || !strings.Contains(err.Error(), "--allow-disruption="+f.gvk.Kind) {
			t.Errorf("creating a %s: %v, want Forbidden saying %q and naming --allow-disruption=%s", f.gvk.Kind, err, f.want, f.gvk.Kind)
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "opcert-abc", Name: "x"}}
	if err := g.Create(ctx, cm); err != nil {
		t.Errorf("a ConfigMap in the run's namespace: %v", err)
	}
	if created := g.Created(); len(created) != 2 {
		t.Errorf("the guard created %v, want the namespace and the ConfigMap", created)
	}
	if crbs := clusterRoleBindings(t, base); len(crbs) != 0 {
		t.Errorf("ClusterRoleBindings on the server: %v", crbs)
	}
}

func clusterRoleBindings(t *testing.T, c client.Client) []unstructured.Unstructured {
	t.Helper()
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBindingList"))
	if err := c.List(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// A kind the user names is created (under the run's names, labelled) when
// the run's record names it, and refused when it does not: the next run
// could not find it after a SIGKILL.
func TestGuardCreatesAKindTheUserAllowedOnlyIfRecorded(t *testing.T) {
	crb := rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding")
	allowed := []KindName{{Kind: "clusterrolebinding", AnyGroup: true}, {Kind: "RoleBinding", Group: "rbac.authorization.k8s.io"}}
	g, _ := kindGuard(t, KindPolicy{Allowed: allowed})
	ctx := context.Background()
	if err := g.Create(ctx, forbiddenObject(crb, false)); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "record does not name its kind") {
		t.Errorf("an allowed kind the record does not name: %v, want Forbidden", err)
	}
	g, base := kindGuard(t, KindPolicy{Allowed: allowed, Declared: []schema.GroupKind{crb.GroupKind()}})
	for _, obj := range []*unstructured.Unstructured{forbiddenObject(crb, false), forbiddenObject(rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), true)} {
		if err := g.Create(ctx, obj); err != nil || obj.GetLabels()[RunLabel] != "abc" {
			t.Errorf("an allowed %s: %v, labels %v", obj.GetKind(), err, obj.GetLabels())
		}
	}
	// Still only under the run's names.
	other := forbiddenObject(crb, false)
	other.SetName("cluster-admin-for-all")
	if err := g.Create(ctx, other); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "named under the run's prefix") {
		t.Errorf("an allowed kind not under the run's prefix: %v, want Forbidden", err)
	}
	if deleted, left := g.Cleanup(5 * time.Second); deleted != 3 || len(left) != 0 {
		t.Errorf("cleanup deleted %d, left %v", deleted, left)
	}
	if crbs := clusterRoleBindings(t, base); len(crbs) != 0 {
		t.Errorf("ClusterRoleBindings after cleanup: %v", crbs)
	}
}

func TestParseKindName(t *testing.T) {
	crb := rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding").GroupKind()
	for _, tc := range []struct {
		in      string
		matches bool
		err     bool
	}{
		{"ClusterRoleBinding", true, false},
		{"clusterrolebinding", true, false},
		{"ClusterRoleBinding.rbac.authorization.k8s.io", true, false},
		{"ClusterRoleBinding.example.com", false, false},
		{"ClusterRole", false, false},
		{"", false, true},
		{"ClusterRoleBinding.", false, true},
		{"rbac/ClusterRoleBinding", false, true},
	} {
		k, err := ParseKindName(tc.in)
		if (err != nil) != tc.err || err == nil && k.Matches(crb) != tc.matches {
			t.Errorf("%q: %+v %v, want matches=%v error=%v", tc.in, k, err, tc.matches, tc.err)
		}
	}
}
