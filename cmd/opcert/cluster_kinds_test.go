package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance"
)

// Cluster mode and the kinds a scenario creates (docs/concepts/reliability.md, cluster safety):
// whatever rights the kubeconfig's user has, a scenario cannot change the
// cluster's security, and what a killed run created is swept by the next.

// ownOperator is a stale scenario played by opcert's own operator (its
// ClusterOperator is created under the run's prefix), with steps.
func ownOperator(t *testing.T, name, duration, steps string) string {
	t.Helper()
	return write(t, t.TempDir(), name+".yaml", `name: `+name+`
mechanism: stale
duration: `+duration+`
operators:
  - name: etcd
    answerDelay: 1s
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
`+steps)
}

// The forbidden kinds, each as a scenario's create step would make it.
const forbiddenSteps = `steps:
  - at: 1m
    create: {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: anonymous-admin},
      roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin},
      subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:anonymous"}]}
  - at: 1m
    create: {apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: block-configmaps},
      webhooks: [{name: block.example.com, admissionReviewVersions: [v1], sideEffects: None, failurePolicy: Fail,
        clientConfig: {url: "https://127.0.0.1:1/"},
        rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}]}]}
  - at: 1m
    create: {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.example.com},
      spec: {group: example.com, scope: Namespaced, names: {plural: widgets, singular: widget, kind: Widget},
        versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]}}
  - at: 1m
    create: {apiVersion: apiregistration.k8s.io/v1, kind: APIService, metadata: {name: v1.example.com},
      spec: {group: example.com, version: v1, groupPriorityMinimum: 100, versionPriority: 100,
        service: {namespace: default, name: evil}, insecureSkipTLSVerify: true}}
  - at: 1m
    create: {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: above-all}, value: 1000000000}
  - at: 1m
    create: {apiVersion: v1, kind: Namespace, metadata: {name: team}}
  - at: 2m
    create: {apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: team-admin, namespace: team},
      roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin},
      subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:anonymous"}]}
`

// grantForbiddenKinds gives group the rights to create (and bind) every
// forbidden kind, so that opcert, not RBAC, is what stops the run.
func grantForbiddenKinds(t *testing.T, tm *clustertest.Team, group string) {
	t.Helper()
	ctx := context.Background()
	verbs := []string{"get", "list", "create", "delete"}
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: group + "-everything"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterrolebindings", "rolebindings"}, Verbs: verbs},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"}},
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, Verbs: verbs},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: verbs},
		{APIGroups: []string{"apiregistration.k8s.io"}, Resources: []string{"apiservices"}, Verbs: verbs},
		{APIGroups: []string{"scheduling.k8s.io"}, Resources: []string{"priorityclasses"}, Verbs: verbs},
		{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses"}, Verbs: verbs},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: verbs},
	}}
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: group + "-everything"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: group}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: cr.Name}}
	cs, err := kubernetes.NewForConfig(tm.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, cr, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, crb.Name, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(ctx, cr.Name, metav1.DeleteOptions{})
	})
}

// securityState lists, one line each, every object of the kinds a
// scenario must not create (and the ConfigMaps of namespace default).
func securityState(t *testing.T, tm *clustertest.Team) []string {
	t.Helper()
	dyn, err := dynamic.NewForConfig(tm.Config)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, gvr := range []schema.GroupVersionResource{
		rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings"),
		rbacv1.SchemeGroupVersion.WithResource("clusterroles"),
		rbacv1.SchemeGroupVersion.WithResource("rolebindings"),
		rbacv1.SchemeGroupVersion.WithResource("roles"),
		{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
		{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
		{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"},
		{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"},
		{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"},
		{Version: "v1", Resource: "namespaces"},
	} {
		l, err := dyn.Resource(gvr).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing %s: %v", gvr.Resource, err)
		}
		for _, it := range l.Items {
			out = append(out, fmt.Sprintf("%s %s/%s", gvr.Resource, it.GetNamespace(), it.GetName()))
		}
	}
	l, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range l.Items {
		out = append(out, "configmaps default/"+it.GetName())
	}
	sort.Strings(out)
	return out
}

// Each forbidden kind, made by a scenario's create step, by a user whose
// rights would let it: the run is refused (exit 2) before anything is
// written, naming each step and why; a cluster-scoped kind no mechanism
// declares is refused once the cluster says its scope, and so is a
// ConfigMap in a namespace not the run's. The cluster is unchanged. A kind
// --allow-disruption names is created under the run's names and deleted
// at the end.
func TestClusterModeRefusesKindsThatChangeTheClustersSecurity(t *testing.T) {
	tm := setupTeam(t)
	bindOpcertRBAC(t, tm, "opcert-kinds", false)
	grantForbiddenKinds(t, tm, "opcert-kinds")
	kc := clustertest.Kubeconfig(t, sharedWorld(t), "opcert-kinds-runner", "opcert-kinds")
	before, snap := securityState(t, tm), snapshot(t, tm, true)
	out := filepath.Join(t.TempDir(), "report")
	run := func(sc string, extra ...string) result {
		return opcert(t, nil, append([]string{"run", sc, "--kubeconfig", kc, "--time-scale", "0.01", "--out", out}, extra...)...)
	}

	sc := ownOperator(t, "forbidden", "12m", forbiddenSteps)
	r := run(sc)
	if r.code != 2 {
		t.Errorf("the forbidden kinds: exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"forbidden.yaml:9: ClusterRoleBinding.rbac.authorization.k8s.io anonymous-admin: RBAC: it grants rights on the cluster; --allow-disruption=ClusterRoleBinding.rbac.authorization.k8s.io allows it",
		"forbidden.yaml:13: ValidatingWebhookConfiguration.admissionregistration.k8s.io block-configmaps: admission control",
		"forbidden.yaml:18: CustomResourceDefinition.apiextensions.k8s.io widgets.example.com: it changes the API the cluster serves",
		"forbidden.yaml:22: APIService.apiregistration.k8s.io v1.example.com: it routes part of the cluster's API",
		"forbidden.yaml:26: PriorityClass.scheduling.k8s.io above-all: it can make the cluster's workloads be preempted",
		"forbidden.yaml:30: RoleBinding.rbac.authorization.k8s.io team/team-admin: RBAC",
		"nothing was written",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "Namespace team") || strings.Contains(r.stderr, "cluster mode: ") {
		t.Errorf("the refusal names the run's own namespace, or reached the cluster:\n%s", r.stderr)
	}

	// A cluster-scoped kind of no security group: refused once the
	// cluster says it is cluster-scoped, before anything is written.
	sc = ownOperator(t, "storage", "12m", `steps:
  - at: 1m
    create: {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: fast}, provisioner: example.com/fast}
`)
	r = run(sc)
	if r.code != 2 || !strings.Contains(r.stderr, "storage.yaml:9: StorageClass.storage.k8s.io fast: a cluster-scoped kind none of the run's mechanisms creates") ||
		!strings.Contains(r.stderr, "nothing was written") || strings.Contains(r.stderr, "everything opcert creates is labelled") {
		t.Errorf("a StorageClass: exit %d, want 2, refused before the run's namespace\n%s", r.code, r.stderr)
	}

	// A namespace not the run's: a scenario's Namespace always is (named
	// under the run's prefix); an object placed in another, or in one the
	// run creates only later, is refused before anything is written.
	sc = ownOperator(t, "elsewhere", "12m", `steps:
  - at: 1m
    create: {apiVersion: v1, kind: ConfigMap, metadata: {name: planted, namespace: default}}
  - at: 2m
    create: {apiVersion: v1, kind: ConfigMap, metadata: {name: early, namespace: team}}
  - at: 3m
    create: {apiVersion: v1, kind: Namespace, metadata: {name: team}}
`)
	r = run(sc)
	for _, want := range []string{`elsewhere.yaml:9: ConfigMap default/planted: namespace "default" is not one the run creates`,
		`elsewhere.yaml:11: ConfigMap team/early: namespace "team" is not one the run creates`, "nothing was written"} {
		if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "everything opcert creates is labelled") {
			t.Errorf("ConfigMaps in namespaces not the run's: exit %d, want 2 before the run's namespace, saying %q\n%s", r.code, want, r.stderr)
		}
	}
	waitState(t, func() []string { return securityState(t, tm) }, before)
	clustertest.SameState(t, snap, snapshot(t, tm, true))

	// Named by --allow-disruption=KIND, the kind is created under the
	// run's names, labelled, and deleted at the end.
	sc = ownOperator(t, "allowed", "12m", `steps:
  - at: 1m
    create: {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: above-all}, value: 1000}
`)
	r = run(sc, "--allow-disruption=PriorityClass")
	if r.code != 0 || !strings.Contains(r.stderr, "deleted the 3 objects run") { // its namespace, ClusterOperator and PriorityClass
		t.Errorf("an allowed PriorityClass: exit %d, want 0 with 3 objects deleted\n%s", r.code, r.stderr)
	}
	waitState(t, func() []string { return securityState(t, tm) }, before)
}

// waitState waits, a few seconds at most, for state to be want (the
// Kubelet finalizes deleted namespaces every 20ms), and says how it
// differs if it does not come.
func waitState(t *testing.T, state func() []string, want []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	got := state()
	for !slices.Equal(got, want) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		got = state()
	}
	clustertest.SameState(t, want, got)
}

// The dry run says what each run creates on the cluster and what would be
// refused, without reaching the cluster.
func TestClusterModeDryRunSaysWhatIsCreatedAndRefused(t *testing.T) {
	kc := write(t, t.TempDir(), "kubeconfig", "apiVersion: v1\nkind: Config\n")
	sc := ownOperator(t, "forbidden", "12m", forbiddenSteps)
	r := opcert(t, nil, "run", sc, "--kubeconfig", kc, "--dry-run")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"each run creates (labelled opcert.io/run=<run id>, deleted at the end, swept by the next run if opcert is killed)",
		"Namespace opcert-<run id>: the run's own",
		"ClusterOperator.config.openshift.io objects named opcert-<run id>-NN-...: what mechanism stale's world creates",
		"forbidden.yaml:28: Namespace team: a namespace of the run, named under its prefix",
		"refused: the run would exit 2 before writing anything",
		"forbidden.yaml:9: ClusterRoleBinding.rbac.authorization.k8s.io anonymous-admin: RBAC",
		"forbidden.yaml:30: RoleBinding.rbac.authorization.k8s.io team/team-admin: RBAC",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the dry run does not say %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "writes only to objects opcert creates") {
		t.Errorf("the dry run still says the run writes only what it creates:\n%s", r.stdout)
	}
}

// A cluster-mode run killed outright (SIGKILL) after it created a
// cluster-scoped object leaves it, labelled, with its record: the next
// run on the cluster finds the run dead (its process is gone), deletes
// what it left and says so.
func TestClusterModeSweepsWhatAKilledRunLeft(t *testing.T) {
	tm := setupTeam(t)
	bindOpcertRBAC(t, tm, "opcert-ci", false)
	kc := clustertest.Kubeconfig(t, sharedWorld(t), "opcert-ci-killed", "opcert-ci")
	before := snapshot(t, tm, true)
	p := startOpcert(t, nil, "run", ownOperator(t, "long", "2h", ""), "--kubeconfig", kc, "--time-scale", "0.01",
		"--out", filepath.Join(t.TempDir(), "report"))
	p.waitLine(t, "everything opcert creates is labelled", 30*time.Second)
	var left configv1.ClusterOperatorList
	deadline := time.Now().Add(30 * time.Second)
	for len(left.Items) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if err := tm.Admin.List(context.Background(), &left, client.HasLabels{cluster.RunLabel}); err != nil {
			t.Fatal(err)
		}
	}
	if len(left.Items) != 1 {
		t.Fatalf("the run's ClusterOperator: %v\n%s", left.Items, p.stderr.String())
	}
	_ = p.cmd.Process.Kill()
	p.wait(t, 10*time.Second)
	co, id := left.Items[0].Name, left.Items[0].Labels[cluster.RunLabel]
	if err := tm.Admin.Get(context.Background(), client.ObjectKey{Name: co}, &configv1.ClusterOperator{}); err != nil {
		t.Fatalf("the killed run's ClusterOperator %s: %v", co, err)
	}

	r := opcert(t, nil, "run", ownOperator(t, "next", "12m", ""), "--kubeconfig", kc, "--time-scale", "0.01",
		"--out", filepath.Join(t.TempDir(), "report"))
	if r.code != 0 {
		t.Fatalf("the next run: exit %d\n%s", r.code, r.stderr)
	}
	swept := regexp.MustCompile(`opcert: swept run ` + id + ` \(its opcert, process \d+ of this machine, is gone\): deleted ClusterOperator.config.openshift.io ` + co + `, Namespace opcert-` + id)
	if !swept.MatchString(r.stderr) {
		t.Errorf("the next run does not say it swept run %s's ClusterOperator %s and namespace:\n%s", id, co, r.stderr)
	}
	waitState(t, func() []string { return snapshot(t, tm, true) }, before)
}

// --allow-disruption takes a kind, or nothing; a kind is for runs on a
// cluster.
func TestAllowDisruptionKindBadInput(t *testing.T) {
	kc := write(t, t.TempDir(), "kubeconfig", "apiVersion: v1\nkind: Config\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kubeconfig", kc, "--scenario", "stale-hang", "--allow-disruption=rbac/Role"}, `--allow-disruption=rbac/Role: "rbac/Role" is not a kind: give Kind or Kind.group`},
		{[]string{"--kubeconfig", kc, "--scenario", "stale-hang", "--allow-disruption=Role."}, "is not a kind"},
		{[]string{"--scenario", "stale-hang", "--allow-disruption=PriorityClass"}, "--allow-disruption is for runs on a cluster"},
	} {
		r := opcert(t, nil, append([]string{"run", "--out", filepath.Join(t.TempDir(), "out")}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
}

// Every mechanism that can be played on a cluster declares the
// cluster-scoped kinds its world creates there (none is a declaration:
// an empty list), none of them a kind that changes the cluster's
// security; Scaled keeps the declaration.
func TestMechanismsDeclareTheirClusterKinds(t *testing.T) {
	mechs, err := conformance.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mechs {
		c, ok := m.(conformance.Clustered)
		if !ok {
			continue
		}
		if c.ClusterKinds() == nil {
			t.Errorf("mechanism %s can be played on a cluster but does not declare ClusterKinds", m.Name())
		}
		for _, gk := range c.ClusterKinds() {
			if why := cluster.Sensitive(gk); why != "" {
				t.Errorf("mechanism %s declares %s, which changes the cluster's security (%s)", m.Name(), gk, why)
			}
		}
		if s, ok := m.(conformance.Scalable); ok {
			scaled, _ := s.Scaled(0.01).(conformance.Clustered)
			if scaled == nil || !slices.Equal(scaled.ClusterKinds(), c.ClusterKinds()) {
				t.Errorf("mechanism %s scaled does not declare what it declares unscaled, %v", m.Name(), c.ClusterKinds())
			}
		}
	}
}
