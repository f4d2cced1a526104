package clustertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/cluster"
)

// Apply creates every object of a YAML file, or leaves it as it is.
func Apply(t testing.TB, cfg *rest.Config, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatal(err)
		}
		if len(u.Object) == 0 {
			continue
		}
		gvk := u.GroupVersionKind()
		res, err := resourceOf(dc, gvk)
		if err != nil {
			t.Fatal(err)
		}
		var ri dynamic.ResourceInterface = dyn.Resource(res)
		if u.GetNamespace() != "" {
			ri = dyn.Resource(res).Namespace(u.GetNamespace())
		}
		if _, err := ri.Create(context.Background(), u, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("%s: creating %s %s: %v", file, gvk.Kind, u.GetName(), err)
		}
	}
}

func resourceOf(dc discovery.DiscoveryInterface, gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	list, err := dc.ServerResourcesForGroupVersion(gvk.GroupVersion().String())
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	for _, r := range list.APIResources {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			return gvk.GroupVersion().WithResource(r.Name), nil
		}
	}
	return schema.GroupVersionResource{}, fmt.Errorf("no resource for %s", gvk)
}

// Kubeconfig writes a kubeconfig of a new user of api into a temporary
// directory of t's, and returns its path: a user in groups, whose rights
// are what RBAC grants them, or, with none, one with every right (a
// team's pod, which RBAC is not what its tests judge).
func Kubeconfig(t testing.TB, api *apiserver.Server, user string, groups ...string) string {
	t.Helper()
	add := api.AddUser
	if len(groups) > 0 {
		add = func(name, server string) ([]byte, *rest.Config, error) {
			return api.AddUserInGroups(name, server, groups)
		}
	}
	data, _, err := add(user, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Admin is a team's own access to api (system:masters, never opcert's),
// with no client-side limit (a snapshot lists every kind: client-go's 5 a
// second makes that 10s) and no warnings (deprecated kinds, listed too).
func Admin(t testing.TB, api *apiserver.Server, user string) *rest.Config {
	t.Helper()
	_, cfg, err := api.AddUser(user, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

// Labelled lists every object, of every kind the server can list, that
// carries opcert's run label: what a run left behind.
func Labelled(t testing.TB, cfg *rest.Config) []string {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			if !slices.Contains(r.Verbs, "list") || strings.Contains(r.Name, "/") {
				continue
			}
			items, err := dyn.Resource(gv.WithResource(r.Name)).List(context.Background(), metav1.ListOptions{LabelSelector: cluster.RunLabel})
			if err != nil {
				t.Fatalf("listing %s: %v", r.Name, err)
			}
			for _, it := range items.Items {
				out = append(out, fmt.Sprintf("labelled %s %s/%s", r.Name, it.GetNamespace(), it.GetName()))
			}
		}
	}
	return out
}

// Namespaces are the server's namespaces, each with its phase, and
// opcert's labelled objects (Labelled), as the team's access cfg (c its
// client) sees them: where every state a run must leave as it found
// begins.
func Namespaces(t testing.TB, cfg *rest.Config, c client.Client) []string {
	t.Helper()
	var nss corev1.NamespaceList
	if err := c.List(context.Background(), &nss); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ns := range nss.Items {
		out = append(out, fmt.Sprintf("namespace %s %s", ns.Name, ns.Status.Phase))
	}
	return append(out, Labelled(t, cfg)...)
}

// Deployments are a team namespace's Deployments, one line each with
// their replicas, and with versions their resource versions (to show
// that nothing was written).
func Deployments(t testing.TB, c client.Client, namespace string, versions bool) []string {
	t.Helper()
	var deps appsv1.DeploymentList
	if err := c.List(context.Background(), &deps, client.InNamespace(namespace)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range deps.Items {
		line := fmt.Sprintf("deployment %s replicas=%d", d.Name, *d.Spec.Replicas)
		if versions {
			line += " rv=" + d.ResourceVersion
		}
		out = append(out, line)
	}
	return out
}

// SameState fails t if a cluster's state (one line each) changed.
func SameState(t testing.TB, before, after []string) {
	t.Helper()
	if !slices.Equal(before, after) {
		t.Errorf("the cluster changed:\nbefore:\n  %s\nafter:\n  %s", strings.Join(before, "\n  "), strings.Join(after, "\n  "))
	}
}

// Bind applies opcert's ClusterRoles (config/rbac's files, relative to the
// test's package: ../../config/rbac/...) and binds them to group, as
// their comments tell a team to: each of clusterWide cluster-wide, each of
// inNamespace in namespace ns.
func Bind(t testing.TB, admin *rest.Config, files []string, group string, clusterWide []string, ns string, inNamespace []string) {
	t.Helper()
	for _, f := range files {
		Apply(t, admin, f)
	}
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	subjects := []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: group}}
	for _, role := range clusterWide {
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: group + "-" + role}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for _, role := range inNamespace {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: group + "-" + role, Namespace: ns}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
		if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// User is the access of a new user of api in groups only: what RBAC
// grants them (Bind), as opcert's user on a team's cluster.
func User(t testing.TB, api *apiserver.Server, user string, groups ...string) *rest.Config {
	t.Helper()
	_, cfg, err := api.AddUserInGroups(user, "", groups)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Team is a team's cluster in a test: its own access (system:masters,
// never opcert's), and the Kubelet that runs its Deployments' pods once
// Start has started it.
type Team struct {
	// Admin is a client with the team's own rights.
	Admin client.Client
	// Config is the team's access, for what needs a rest.Config.
	Config *rest.Config
	// Kubelet runs the team's Deployments' pods once Start has started it.
	Kubelet *Kubelet
}

// NewTeam applies file (the team's deploy YAML, relative to the test's
// package) to api as admin, a user of the team's own.
func NewTeam(t testing.TB, api *apiserver.Server, admin, file string) *Team {
	t.Helper()
	cfg := Admin(t, api, admin)
	c, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	Apply(t, cfg, file)
	return &Team{Admin: c, Config: cfg}
}

// Start starts the Kubelet with o, its pods reaching api as user; the
// test's end stops it, before the clean-ups registered before Start.
func (tm *Team) Start(t testing.TB, api *apiserver.Server, user string, o KubeletOptions) {
	t.Helper()
	o.Kubeconfig = Kubeconfig(t, api, user)
	tm.Kubelet = StartKubelet(t, tm.Config, o)
	t.Cleanup(tm.Kubelet.Stop)
}
