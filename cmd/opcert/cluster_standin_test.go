package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/process"
	"github.com/opcert/opcert/sim/apiserver"
)

// A team's cluster, played on opcert's envtest server for cluster mode's
// tests: the example operator deployed by examples/kind-nightly/operator.yaml
// (two Deployments, etcd-operator and dns-operator), and a stand-in for
// what envtest lacks, the controller-manager and the kubelet. opcert
// itself reaches the server only through kubeconfig files, as it would a
// remote cluster.

const operatorNS = "example-operators"

// team is the cluster as its owners set it up.
type team struct {
	admin  client.Client // the team's own access (system:masters), never opcert's
	config *rest.Config
	stand  *standIn
	// kubeconfig writes a kubeconfig of a new user in groups.
	kubeconfig func(user string, groups ...string) string
}

// setupTeam deploys the example operator (both Deployments at 1 replica)
// and starts the stand-in; both operators have created their
// ClusterOperators when it returns. The test's end stops the stand-in (its
// processes die) and deletes the ClusterOperators, so that tests after it
// on the shared server see nothing of it.
func setupTeam(t *testing.T) *team {
	t.Helper()
	w := sharedWorld(t)
	bin := exampleBinary(t, w)
	_, cfg, err := w.AddUser("team-admin", "")
	if err != nil {
		t.Fatal(err)
	}
	// The team's own clients list every kind in a snapshot: no
	// client-side limit (client-go's 5 a second makes that 10s).
	cfg.QPS, cfg.Burst = -1, 0
	cfg.WarningHandler = rest.NoWarnings{} // deprecated kinds, listed by the snapshots
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, cfg, "../../examples/kind-nightly/operator.yaml")
	for _, name := range []string{"etcd-operator", "dns-operator"} {
		scaleTo(t, admin, name, 1)
	}
	tm := &team{admin: admin, config: cfg, kubeconfig: func(user string, groups ...string) string {
		data, _, err := w.AddUserInGroups(user, "", groups)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, t.TempDir(), "kubeconfig", string(data))
	}}
	tm.stand = startStandIn(t, cfg, kubeconfig(t, w, "example-operator"), bin)
	t.Cleanup(func() {
		tm.stand.stop()
		for _, name := range []string{"etcd", "dns"} {
			_ = admin.Delete(context.Background(), &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range []string{"etcd", "dns"} {
		for {
			co := &configv1.ClusterOperator{}
			err := admin.Get(context.Background(), client.ObjectKey{Name: name}, co)
			if err == nil && len(co.Status.Conditions) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the example operator did not create ClusterOperator %s: %v\n%s", name, err, tm.stand.logs())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return tm
}

// The example operator's binary, built once for all the cluster tests into
// the shared API server's run directory, which goes when it stops.
var (
	exampleOnce sync.Once
	examplePath string
	exampleErr  error
)

func exampleBinary(t *testing.T, w *apiserver.Server) string {
	t.Helper()
	exampleOnce.Do(func() {
		examplePath = filepath.Join(w.Dir(), "staleoperator")
		out, err := exec.Command("go", "build", "-o", examplePath, "../../examples/staleoperator/cmd/staleoperator").CombinedOutput()
		if err != nil {
			exampleErr = fmt.Errorf("building the example operator: %v\n%s", err, out)
		}
	})
	if exampleErr != nil {
		t.Fatal(exampleErr)
	}
	return examplePath
}

// apply creates every object of a YAML file, or leaves it as it is.
func apply(t *testing.T, cfg *rest.Config, file string) {
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

func scaleTo(t *testing.T, c client.Client, name string, n int32) {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: name}, d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas != nil && *d.Spec.Replicas == n {
		return
	}
	d.Spec.Replicas = &n
	if err := c.Update(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

// standIn plays the controller-manager and the kubelet for the example's
// Deployments in namespace ns: while a Deployment's spec.replicas is 1 or
// more, its pod is the example operator's binary run here with the
// container's args and environment (one process, however many replicas;
// a variable from the downward API's metadata.labels read from the pod
// template), killed (SIGKILL to its group) once they are 0, and replaced
// when its template's labels change (a rollout); the operands that
// operator writes in ns (workloads labelled managedByKey) get their
// pods (operandPods); a namespace being deleted is finalized (the
// namespace controller's part, once its objects are gone). It looks every
// 50ms.
type standIn struct {
	c          client.Client
	cs         kubernetes.Interface
	ns         string
	bin, kc    string
	dir        string
	mu         sync.Mutex
	procs      map[string]*process.Proc
	started    map[string]string // what each process was started from: its template's labels
	starts     []string          // every start: the Deployment's name and its template's version label
	pods       *operandPods
	quit, done chan struct{}
}

func startStandIn(t *testing.T, cfg *rest.Config, kubeconfig, bin string) *standIn {
	t.Helper()
	return startStandInIn(t, cfg, operatorNS, kubeconfig, bin)
}

// startStandInIn starts a stand-in for the Deployments of namespace ns.
func startStandInIn(t *testing.T, cfg *rest.Config, ns, kubeconfig, bin string) *standIn {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &standIn{c: c, cs: cs, ns: ns, bin: bin, kc: kubeconfig, dir: t.TempDir(), procs: map[string]*process.Proc{},
		started: map[string]string{}, pods: &operandPods{c: c, ns: ns, born: map[string]time.Time{}},
		quit: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *standIn) loop() {
	defer close(s.done)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		s.sync()
		select {
		case <-s.quit:
			return
		case <-tick.C:
		}
	}
}

func (s *standIn) sync() {
	ctx := context.Background()
	var deps appsv1.DeploymentList
	if err := s.c.List(ctx, &deps, client.InNamespace(s.ns)); err == nil {
		for _, d := range deps.Items {
			if d.Labels[managedByKey] != managedBy {
				s.reconcile(d)
			}
		}
	}
	s.pods.sync(ctx)
	var nss corev1.NamespaceList
	if err := s.c.List(ctx, &nss); err == nil {
		for _, ns := range nss.Items {
			if ns.DeletionTimestamp != nil && len(ns.Spec.Finalizers) > 0 {
				ns.Spec.Finalizers = nil
				_, _ = s.cs.CoreV1().Namespaces().Finalize(ctx, &ns, metav1.UpdateOptions{})
			}
		}
	}
}

func (s *standIn) reconcile(d appsv1.Deployment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.procs[d.Name]
	running := p != nil
	if running {
		select {
		case <-p.Done():
			running = false // crashed: the kubelet starts it again
		default:
		}
	}
	want := d.Spec.Replicas == nil || *d.Spec.Replicas > 0
	from := fmt.Sprint(d.Spec.Template.Labels)
	if want && running && s.started[d.Name] != from {
		_ = p.Kill() // a new template: the rollout replaces the pod
		running = false
	}
	switch {
	case want && !running && len(d.Spec.Template.Spec.Containers) > 0:
		ctr := d.Spec.Template.Spec.Containers[0]
		argv := append([]string{s.bin}, ctr.Args...)
		env := []string{"KUBECONFIG=" + s.kc}
		for _, e := range ctr.Env {
			env = append(env, e.Name+"="+downward(e, d.Spec.Template.Labels))
		}
		p, err := process.Start(process.Options{Argv: argv, Env: env, Log: filepath.Join(s.dir, d.Name+".log")})
		if err == nil {
			s.procs[d.Name], s.started[d.Name] = p, from
			s.starts = append(s.starts, d.Name+" "+d.Spec.Template.Labels[versionKey])
		}
	case !want && running:
		_ = p.Kill()
		delete(s.procs, d.Name)
	}
}

// downward is a container variable's value as the kubelet gives it: its
// value, or a pod label's through the downward API (the pod's labels are
// its template's).
func downward(e corev1.EnvVar, labels map[string]string) string {
	if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil {
		return e.Value
	}
	key, ok := strings.CutPrefix(e.ValueFrom.FieldRef.FieldPath, "metadata.labels['")
	if !ok {
		return ""
	}
	return labels[strings.TrimSuffix(key, "']")]
}

// running lists the Deployments whose pod runs.
func (s *standIn) running() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for name, p := range s.procs {
		select {
		case <-p.Done():
		default:
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// startedSince lists every process start since the last call: "NAME VERSION".
func (s *standIn) startedSince() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.starts
	s.starts = nil
	return out
}

// waitRunning waits until exactly these Deployments' pods run.
func (s *standIn) waitRunning(t *testing.T, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for strings.Join(s.running(), ",") != want {
		if time.Now().After(deadline) {
			t.Fatalf("running %v, want %s", s.running(), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *standIn) stop() {
	close(s.quit)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, p := range s.procs {
		_ = p.Kill()
		delete(s.procs, name)
	}
}

// logs is the operators' output, for a failure's message.
func (s *standIn) logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(s.dir, "*.log"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(f), data)
	}
	return b.String()
}

// The keys of seed 001's world the stand-in reads and writes, as the
// example component operator (examples/componentoperator) and the rules
// name them.
const (
	// managedByKey is managedBy on each operand the example operator
	// writes: the workloads whose pods the stand-in plays, and not one of
	// the operator Deployments it runs as processes.
	managedByKey  = "app.kubernetes.io/managed-by"
	managedBy     = "componentoperator"
	versionKey    = "opcert.io/version"     // on a pod template and its pods
	workloadKey   = "opcert.io/workload"    // on each pod: its workload
	readyAfterKey = "opcert.io/ready-after" // on a workload: how long its new pods take to get ready
)

// standInNodes are the nodes the operands' pods run on: the scenarios'
// default nodes.
var standInNodes = []string{"master-0", "master-1", "master-2"}

// operandPods plays the Deployment and DaemonSet controllers and the
// kubelet for the operands of namespace ns, in a few lines rather than
// sim/workload's (which run on opcert's scheduler): pods from the
// template, Pending, then Running and Ready once the workload's
// opcert.io/ready-after has passed since their creation; installed all at
// once, then a Deployment rolled one surged pod at a time (an old pod
// deleted once a new one is ready), a DaemonSet node by node (the old pod
// deleted, then the new one made); the workloads' status counted from
// their pods.
type operandPods struct {
	c    client.Client
	ns   string
	born map[string]time.Time // each pod's creation, to the millisecond (the server keeps seconds)
	seq  int
}

func (o *operandPods) sync(ctx context.Context) {
	var deps appsv1.DeploymentList
	var dss appsv1.DaemonSetList
	var pods corev1.PodList
	sel := client.MatchingLabels{managedByKey: managedBy}
	if o.c.List(ctx, &deps, client.InNamespace(o.ns), sel) != nil || o.c.List(ctx, &dss, client.InNamespace(o.ns), sel) != nil ||
		o.c.List(ctx, &pods, client.InNamespace(o.ns), client.HasLabels{workloadKey}) != nil {
		return
	}
	byWorkload := map[string][]corev1.Pod{}
	for _, p := range pods.Items {
		byWorkload[p.Labels[workloadKey]] = append(byWorkload[p.Labels[workloadKey]], p)
	}
	for i := range deps.Items {
		d := &deps.Items[i]
		n := int(ptrOr(d.Spec.Replicas, 1))
		ready, updated := o.roll(ctx, d, d.Spec.Template, byWorkload[d.Name], nil, n)
		st := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: int32(len(byWorkload[d.Name])),
			UpdatedReplicas: int32(updated), ReadyReplicas: int32(ready), AvailableReplicas: int32(ready)}
		if !equality.Semantic.DeepEqual(d.Status, st) {
			d.Status = st
			_ = o.c.Status().Update(ctx, d)
		}
	}
	for i := range dss.Items {
		d := &dss.Items[i]
		ready, updated := o.roll(ctx, d, d.Spec.Template, byWorkload[d.Name], standInNodes, len(standInNodes))
		n := int32(len(standInNodes))
		st := appsv1.DaemonSetStatus{ObservedGeneration: d.Generation, DesiredNumberScheduled: n, CurrentNumberScheduled: n,
			UpdatedNumberScheduled: int32(updated), NumberReady: int32(ready), NumberAvailable: int32(ready)}
		if !equality.Semantic.DeepEqual(d.Status, st) {
			d.Status = st
			_ = o.c.Status().Update(ctx, d)
		}
	}
}

// roll moves a workload's pods one step towards n pods of its template's
// version, ready; nodes, for a DaemonSet, are where each pod must run.
// It returns how many pods are ready and how many run the version.
func (o *operandPods) roll(ctx context.Context, w client.Object, tmpl corev1.PodTemplateSpec, pods []corev1.Pod, nodes []string, n int) (ready, updated int) {
	v := tmpl.Labels[versionKey]
	pace, _ := time.ParseDuration(w.GetAnnotations()[readyAfterKey])
	var fresh, old []corev1.Pod
	waiting := false // a new pod is not ready yet: the rollout waits for it
	for _, p := range pods {
		isReady := podReady(p)
		if !isReady && time.Since(o.born[p.Name]) >= pace {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
			isReady = o.c.Status().Update(ctx, &p) == nil
		}
		if isReady {
			ready++
		}
		if p.Labels[versionKey] == v {
			fresh = append(fresh, p)
			waiting = waiting || !isReady
		} else {
			old = append(old, p)
		}
	}
	updated = len(fresh)
	switch {
	case waiting:
	case nodes == nil && len(old) > 0 && len(fresh)+len(old) > n:
		o.remove(ctx, old[0])
	case nodes == nil && len(fresh) < n:
		for i := len(fresh); i < n && (i == len(fresh) || len(old) == 0); i++ { // an installation: all at once
			o.create(ctx, w, tmpl, standInNodes[(i+len(old))%len(standInNodes)])
		}
	case nodes != nil && len(old) == 0: // an installation: on every node at once
		for _, node := range nodes {
			if !slices.ContainsFunc(fresh, func(p corev1.Pod) bool { return p.Spec.NodeName == node }) {
				o.create(ctx, w, tmpl, node)
			}
		}
	case nodes != nil:
		for _, node := range nodes {
			if slices.ContainsFunc(fresh, func(p corev1.Pod) bool { return p.Spec.NodeName == node }) {
				continue
			}
			if i := slices.IndexFunc(old, func(p corev1.Pod) bool { return p.Spec.NodeName == node }); i >= 0 {
				o.remove(ctx, old[i])
			}
			o.create(ctx, w, tmpl, node)
			break
		}
	}
	return ready, updated
}

func (o *operandPods) create(ctx context.Context, w client.Object, tmpl corev1.PodTemplateSpec, node string) {
	o.seq++
	labels := map[string]string{workloadKey: w.GetName()}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: o.ns, Name: fmt.Sprintf("%s-%d", w.GetName(), o.seq), Labels: labels},
		Spec: *tmpl.Spec.DeepCopy()}
	p.Spec.NodeName = node
	if o.c.Create(ctx, p) == nil {
		o.born[p.Name] = time.Now()
	}
}

// remove deletes a pod at once: no kubelet here waits out its grace.
func (o *operandPods) remove(ctx context.Context, p corev1.Pod) {
	_ = o.c.Delete(ctx, &p, client.GracePeriodSeconds(0))
	delete(o.born, p.Name)
}

func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func ptrOr(p *int32, d int32) int32 {
	if p == nil {
		return d
	}
	return *p
}
