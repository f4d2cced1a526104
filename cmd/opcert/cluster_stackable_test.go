package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/reports"
)

// Cluster mode for seed 004 (README "On a cluster"): the example
// stackable operator (examples/stackableoperator: client-go, nothing of
// opcert) deployed by examples/stackableoperator/deploy.yaml, one
// Deployment watching every namespace, plays the operator on opcert's
// envtest server reached only through kubeconfig files; the stand-in runs
// its binary while the Deployment has replicas, and stackablePods plays
// the cluster's controllers and kubelet for the workloads it writes.

const (
	stackableNS      = "example-stackable"
	stackableSubject = "stackable.operator=deployment:" + stackableNS + "/stackableoperator"
	// The labels seed 004's scenarios find a cluster's workloads and pods
	// by, which the example puts on its workloads and their templates.
	instanceLabel  = "app.kubernetes.io/instance"
	componentLabel = "app.kubernetes.io/component"
)

var (
	stackableOnce sync.Once
	stackablePath string
	stackableErr  error
)

// stackableBinary builds the example stackable operator once for the
// process and cluster tests, into the shared API server's run directory,
// which goes when it stops.
func stackableBinary(t *testing.T) string {
	t.Helper()
	w := sharedWorld(t)
	stackableOnce.Do(func() {
		stackablePath = filepath.Join(w.Dir(), "stackableoperator")
		out, err := exec.Command("go", "build", "-o", stackablePath, "../../examples/stackableoperator/cmd/stackableoperator").CombinedOutput()
		if err != nil {
			stackableErr = fmt.Errorf("building the example stackable operator: %v\n%s", err, out)
		}
	})
	if stackableErr != nil {
		t.Fatal(stackableErr)
	}
	return stackablePath
}

// stackableTeam is the team's cluster for seed 004.
type stackableTeam struct {
	admin  client.Client
	config *rest.Config
	// kubeconfig writes a kubeconfig of a new user in groups.
	kubeconfig func(user string, groups ...string) string
}

// setupStackable deploys the example (its Deployment at 1 replica), starts
// the stand-in and the pods' player, and waits for the operator to run.
// The test's end stops both; the player has deleted by then what the
// operator made for clusters that are gone, as the garbage collector would.
func setupStackable(t *testing.T) *stackableTeam {
	t.Helper()
	w := sharedWorld(t)
	bin := stackableBinary(t)
	_, cfg, err := w.AddUser("stackable-admin", "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	cfg.WarningHandler = rest.NoWarnings{}
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, cfg, "../../examples/stackableoperator/deploy.yaml")
	tm := &stackableTeam{admin: admin, config: cfg, kubeconfig: func(user string, groups ...string) string {
		data, _, err := w.AddUserInGroups(user, "", groups)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, t.TempDir(), "kubeconfig", string(data))
	}}
	stand := startStandInIn(t, cfg, stackableNS, kubeconfig(t, w, "stackable-operator"), bin)
	pods := startStackablePods(admin, 1500*time.Millisecond) // the scenarios' 30s at 0.05
	t.Cleanup(func() {
		stand.stop()
		pods.stop()
	})
	stand.waitRunning(t, "stackableoperator", 10*time.Second)
	return tm
}

// bind applies opcert's roles and binds them to group: opcert-cluster
// and, if stackable, opcert-cluster-stackable cluster-wide,
// opcert-cluster-scale in the operator's namespace.
func (tm *stackableTeam) bind(t *testing.T, group string, stackable bool) {
	t.Helper()
	apply(t, tm.config, "../../config/rbac/opcert-cluster.yaml")
	apply(t, tm.config, "../../config/rbac/opcert-cluster-stackable.yaml")
	cs, err := kubernetes.NewForConfig(tm.config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	subjects := []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: group}}
	roles := []string{"opcert-cluster"}
	if stackable {
		roles = append(roles, "opcert-cluster-stackable")
	}
	for _, role := range roles {
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: group + "-" + role}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: group + "-opcert-cluster-scale", Namespace: stackableNS}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "opcert-cluster-scale"}}
	if _, err := cs.RbacV1().RoleBindings(stackableNS).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// state is what a run may change and must leave as it found: the
// namespaces, opcert's labelled objects, the SampleClusters, the
// workloads and pods of product clusters, and the operator Deployment's
// replicas (with its resource version, to show nothing was written).
func (tm *stackableTeam) state(t *testing.T, versions bool) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var nss corev1.NamespaceList
	if err := tm.admin.List(ctx, &nss); err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		out = append(out, fmt.Sprintf("namespace %s %s", ns.Name, ns.Status.Phase))
	}
	out = append(out, labelled(t, &team{config: tm.config})...)
	clusters := &unstructured.UnstructuredList{}
	clusters.SetAPIVersion("samples.opcert.io/v1alpha1")
	clusters.SetKind("SampleClusterList")
	lists := []client.ObjectList{clusters, &appsv1.StatefulSetList{}, &appsv1.DeploymentList{}, &appsv1.DaemonSetList{}, &corev1.PodList{}}
	for _, l := range lists {
		if err := tm.admin.List(ctx, l); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			obj := it.(client.Object)
			if _, ok := obj.GetLabels()[instanceLabel]; ok || l == clusters {
				out = append(out, fmt.Sprintf("%T %s/%s", l, obj.GetNamespace(), obj.GetName()))
			}
		}
	}
	d := &appsv1.Deployment{}
	if err := tm.admin.Get(ctx, client.ObjectKey{Namespace: stackableNS, Name: "stackableoperator"}, d); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("deployment stackableoperator replicas=%d", *d.Spec.Replicas)
	if versions {
		line += " rv=" + d.ResourceVersion
	}
	return append(out, line)
}

// waitState waits for the state to be want: the cluster's garbage
// collection (the pods' player here) follows the run's cleanup.
func (tm *stackableTeam) waitState(t *testing.T, want []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := tm.state(t, false)
		if strings.Join(got, "\n") == strings.Join(want, "\n") || time.Now().After(deadline) {
			sameState(t, want, got)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stackable-steady on the cluster: the example's Deployment passes the
// STACKABLE rules as a user bound only to the shipped roles, and the
// cluster is left as found.
func TestClusterModeCertifiesTheStackableOperator(t *testing.T) {
	tm := setupStackable(t)
	tm.bind(t, "opcert-stackable", true)
	kc := tm.kubeconfig("opcert-stackable-runner", "opcert-stackable")
	before := tm.state(t, false)
	out := filepath.Join(t.TempDir(), "report")
	r := opcert(t, nil, "run", "--out", out, "--scenario", "stackable-steady", "--kubeconfig", kc,
		"--subject", stackableSubject, "--allow-disruption", "--time-scale", "0.05")
	if r.code != 0 {
		t.Fatalf("stackable-steady on the cluster: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	run := readReport(t, out).Runs[0]
	judged := map[string]reports.Status{}
	for _, c := range run.Cases {
		judged[c.Rule] = c.Status
		if c.Status != reports.Pass && c.Status != reports.Skip {
			t.Errorf("%s: %s %s", c.Rule, c.Status, c.Message)
		}
	}
	for _, id := range []string{"STACKABLE-001", "STACKABLE-002", "STACKABLE-003", "STACKABLE-004", "STACKABLE-007", "EXPECT"} {
		if judged[id] != reports.Pass {
			t.Errorf("%s is %q, want pass", id, judged[id])
		}
	}
	// The status is the operator's; the workloads' status and the pods the
	// cluster's.
	writers := map[string]bool{}
	for _, e := range readTimeline(t, filepath.Join(out, run.Timeline)) {
		if e.IsWrite() && e.Object.Kind != "Namespace" && e.Actor != "scenario" {
			writers[e.Actor+" "+e.Role+" "+e.Object.Kind+" "+e.Verb] = true
		}
	}
	for _, w := range []string{"operator operator SampleCluster update-status", "operator operator StatefulSet create",
		"cluster workload StatefulSet update-status", "cluster workload Pod create"} {
		if !writers[w] {
			t.Errorf("no write %q on the timeline: %v", w, sortedKeys(writers))
		}
	}
	if len(run.Processes) != 1 || !strings.Contains(strings.Join(run.Processes[0].Endings, "; "), "left at 1 replicas") {
		t.Errorf("the report says of the Deployment: %+v", run.Processes)
	}
	tm.waitState(t, before)
}

// Without --allow-disruption the run is refused, naming the Deployment
// it would scale; a user without opcert-cluster-stackable is told which
// rights are missing. Nothing is written either way.
func TestClusterModeStackableRefused(t *testing.T) {
	tm := setupStackable(t)
	tm.bind(t, "opcert-stackable-half", false)
	tm.bind(t, "opcert-stackable", true)
	before := tm.state(t, true)
	args := []string{"run", "--scenario", "stackable-operator-restart", "--subject", stackableSubject, "--time-scale", "0.05",
		"--out", filepath.Join(t.TempDir(), "report")}
	for _, tc := range []struct {
		name  string
		extra []string
		group string
		want  []string
	}{
		{"without --allow-disruption", nil, "opcert-stackable", []string{"without --allow-disruption",
			"Deployment.apps example-stackable/stackableoperator", "scaled to 1 if it has no replica at the start",
			"step restartOperator at +4m0s scales it to 0 and back", "nothing was written"}},
		{"a right missing", []string{"--allow-disruption"}, "opcert-stackable-half", []string{
			"list statefulsets.apps cluster-wide (ClusterRole opcert-cluster-stackable)", "watch pods cluster-wide (ClusterRole opcert-cluster-stackable)"}},
	} {
		r := opcert(t, nil, append(append(args, tc.extra...), "--kubeconfig", tm.kubeconfig(tc.group+"-runner", tc.group))...)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", tc.name, r.code, r.stderr)
		}
		for _, s := range tc.want {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("%s: the error does not say %q:\n%s", tc.name, s, r.stderr)
			}
		}
	}
	sameState(t, before, tm.state(t, true))
}

// stackablePods plays the cluster's controllers and kubelet for the
// workloads of product clusters (labelled app.kubernetes.io/instance), in
// every namespace, in a few lines rather than sim/workload's (which run
// on opcert's scheduler): a pod per replica (a DaemonSet's per node),
// named <workload>-<n>, Running and Ready once pace has passed since its
// creation; extra pods deleted; the workloads' status counted from their
// pods; and, as the garbage collector, the workloads of a SampleCluster
// that is gone deleted, and the pods of a workload that is gone. It
// looks every 50ms.
type stackablePods struct {
	c          client.Client
	pace       time.Duration
	born       map[string]time.Time // by namespace/name
	quit, done chan struct{}
}

func startStackablePods(c client.Client, pace time.Duration) *stackablePods {
	p := &stackablePods{c: c, pace: pace, born: map[string]time.Time{}, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			p.sync(context.Background())
			select {
			case <-p.quit:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *stackablePods) stop() {
	close(p.quit)
	<-p.done
}

// workloadOf is what the player reads of a workload.
type workloadOf struct {
	obj      client.Object
	want     int
	template corev1.PodTemplateSpec
	daemon   bool
}

func (p *stackablePods) sync(ctx context.Context) {
	sel := client.HasLabels{instanceLabel}
	var sts appsv1.StatefulSetList
	var deps appsv1.DeploymentList
	var dss appsv1.DaemonSetList
	var pods corev1.PodList
	if p.c.List(ctx, &sts, sel) != nil || p.c.List(ctx, &deps, sel) != nil || p.c.List(ctx, &dss, sel) != nil || p.c.List(ctx, &pods, sel) != nil {
		return
	}
	var ws []workloadOf
	for i := range sts.Items {
		s := &sts.Items[i]
		ws = append(ws, workloadOf{obj: s, want: int(ptrOr(s.Spec.Replicas, 1)), template: s.Spec.Template})
	}
	for i := range deps.Items {
		d := &deps.Items[i]
		ws = append(ws, workloadOf{obj: d, want: int(ptrOr(d.Spec.Replicas, 1)), template: d.Spec.Template})
	}
	for i := range dss.Items {
		d := &dss.Items[i]
		ws = append(ws, workloadOf{obj: d, want: len(standInNodes), template: d.Spec.Template, daemon: true})
	}
	byWorkload := map[string][]corev1.Pod{} // by namespace/instance/component
	for _, pod := range pods.Items {
		k := pod.Namespace + "/" + pod.Labels[instanceLabel] + "/" + pod.Labels[componentLabel]
		byWorkload[k] = append(byWorkload[k], pod)
	}
	live := map[string]bool{}
	for _, w := range ws {
		if p.orphan(ctx, w.obj) {
			_ = p.c.Delete(ctx, w.obj)
			continue
		}
		k := w.obj.GetNamespace() + "/" + w.template.Labels[instanceLabel] + "/" + w.template.Labels[componentLabel]
		live[k] = true
		ready := p.run(ctx, w, byWorkload[k])
		p.status(ctx, w, len(byWorkload[k]), ready)
	}
	for k, ps := range byWorkload {
		if !live[k] {
			for _, pod := range ps {
				p.remove(ctx, pod)
			}
		}
	}
}

// orphan tells whether the SampleCluster that controls obj is gone.
func (p *stackablePods) orphan(ctx context.Context, obj client.Object) bool {
	ref := metav1.GetControllerOf(obj)
	if ref == nil {
		return false
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(ref.APIVersion)
	u.SetKind(ref.Kind)
	err := p.c.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, u)
	return apierrors.IsNotFound(err) || err == nil && u.GetUID() != ref.UID
}

// run makes the workload's pods, n of them, deletes the extra ones and
// gets the young ones ready; it returns how many are ready.
func (p *stackablePods) run(ctx context.Context, w workloadOf, pods []corev1.Pod) int {
	names := map[string]bool{}
	ready := 0
	for _, pod := range pods {
		name := pod.Name
		if !p.wanted(w, name) {
			p.remove(ctx, pod)
			continue
		}
		names[name] = true
		key := pod.Namespace + "/" + name
		if !podReady(pod) && time.Since(p.born[key]) >= p.pace {
			pod.Status.Phase = corev1.PodRunning
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
			if p.c.Status().Update(ctx, &pod) != nil {
				continue
			}
		}
		if podReady(pod) {
			ready++
		}
	}
	for i := range w.want {
		name := p.podName(w, i)
		if names[name] {
			continue
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.obj.GetNamespace(), Name: name, Labels: w.template.Labels},
			Spec: *w.template.Spec.DeepCopy()}
		pod.Spec.NodeName = standInNodes[i%len(standInNodes)]
		if p.c.Create(ctx, pod) == nil {
			p.born[pod.Namespace+"/"+name] = time.Now()
		}
	}
	return ready
}

func (p *stackablePods) podName(w workloadOf, i int) string {
	if w.daemon {
		return w.obj.GetName() + "-" + standInNodes[i]
	}
	return fmt.Sprintf("%s-%d", w.obj.GetName(), i)
}

func (p *stackablePods) wanted(w workloadOf, name string) bool {
	for i := range w.want {
		if p.podName(w, i) == name {
			return true
		}
	}
	return false
}

func (p *stackablePods) remove(ctx context.Context, pod corev1.Pod) {
	_ = p.c.Delete(ctx, &pod, client.GracePeriodSeconds(0))
	delete(p.born, pod.Namespace+"/"+pod.Name)
}

// status writes the workload's status from its pods, as its controller
// counts them, when it differs.
func (p *stackablePods) status(ctx context.Context, w workloadOf, pods, ready int) {
	n, r := int32(pods), int32(ready)
	switch obj := w.obj.(type) {
	case *appsv1.StatefulSet:
		st := appsv1.StatefulSetStatus{ObservedGeneration: obj.Generation, Replicas: n, CurrentReplicas: n, UpdatedReplicas: n, ReadyReplicas: r, AvailableReplicas: r}
		if !equality.Semantic.DeepEqual(obj.Status, st) {
			obj.Status = st
			_ = p.c.Status().Update(ctx, obj)
		}
	case *appsv1.Deployment:
		st := appsv1.DeploymentStatus{ObservedGeneration: obj.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: r, AvailableReplicas: r}
		if !equality.Semantic.DeepEqual(obj.Status, st) {
			obj.Status = st
			_ = p.c.Status().Update(ctx, obj)
		}
	case *appsv1.DaemonSet:
		d := int32(w.want)
		st := appsv1.DaemonSetStatus{ObservedGeneration: obj.Generation, DesiredNumberScheduled: d, CurrentNumberScheduled: n, UpdatedNumberScheduled: n, NumberReady: r, NumberAvailable: r}
		if !equality.Semantic.DeepEqual(obj.Status, st) {
			obj.Status = st
			_ = p.c.Status().Update(ctx, obj)
		}
	}
}
