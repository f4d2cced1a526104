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
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
	"github.com/opcert/opcert/sim/world"
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

func exampleBinary(t *testing.T, w *world.World) string {
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
// Deployments: while a Deployment's spec.replicas is 1 or more, its pod is
// the example operator's binary run here with the container's args (one
// process, however many replicas), killed (SIGKILL to its group) once they
// are 0; a namespace being deleted is finalized (the namespace controller's
// part, once its objects are gone). It looks every 50ms.
type standIn struct {
	c          client.Client
	cs         kubernetes.Interface
	bin, kc    string
	dir        string
	mu         sync.Mutex
	procs      map[string]*process.Proc
	quit, done chan struct{}
}

func startStandIn(t *testing.T, cfg *rest.Config, kubeconfig, bin string) *standIn {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &standIn{c: c, cs: cs, bin: bin, kc: kubeconfig, dir: t.TempDir(), procs: map[string]*process.Proc{},
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
	if err := s.c.List(ctx, &deps, client.InNamespace(operatorNS)); err == nil {
		for _, d := range deps.Items {
			s.reconcile(d)
		}
	}
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
	switch {
	case want && !running && len(d.Spec.Template.Spec.Containers) > 0:
		argv := append([]string{s.bin}, d.Spec.Template.Spec.Containers[0].Args...)
		p, err := process.Start(process.Options{Argv: argv, Env: []string{"KUBECONFIG=" + s.kc},
			Log: filepath.Join(s.dir, d.Name+".log")})
		if err == nil {
			s.procs[d.Name] = p
		}
	case !want && running:
		_ = p.Kill()
		delete(s.procs, d.Name)
	}
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
