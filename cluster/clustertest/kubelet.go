package clustertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/process"
)

// KubeletOptions say which Deployments a Kubelet plays and how.
type KubeletOptions struct {
	// Namespace holds the Deployments it plays.
	Namespace string
	// Bin is the binary a pod runs when its container gives no command
	// (the team's image), with the container's args.
	Bin string
	// Kubeconfig is the pods' access (a user of their own).
	Kubeconfig string
	// Skip leaves a Deployment to another stand-in (an operand the team's
	// operator writes, whose pods are no process).
	Skip func(d *appsv1.Deployment) bool
}

// Kubelet plays the controller-manager and the kubelet for the
// Deployments of a namespace, every 20ms: while a Deployment's
// spec.replicas is 1 or more, its pod is one process (however many
// replicas), its container's command or Bin with the container's args and
// environment (a variable from the downward API's metadata.labels read
// from the pod template), started again when it dies; killed (SIGKILL to
// its group: a kubelet's SIGTERM first changes nothing the tests judge)
// once they are 0, and replaced when its template's labels change (a
// rollout). It also finalizes a namespace being deleted, once its objects
// are gone (the namespace controller's part). Stop ends it and its
// processes.
type Kubelet struct {
	o      KubeletOptions
	c      client.Client
	cs     kubernetes.Interface
	dir    string
	mu     sync.Mutex
	procs  map[string]*process.Proc
	from   map[string]string // what each process was started from: its template's labels
	starts []start
	count  map[string]int
	stop   func()
}

// start is a pod's start: its Deployment and its template's labels.
type start struct {
	dep    string
	labels map[string]string
}

// StartKubelet starts a Kubelet on the server of cfg (the team's access);
// the pods' output goes to a temporary directory of t's.
func StartKubelet(t testing.TB, cfg *rest.Config, o KubeletOptions) *Kubelet {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	k := &Kubelet{o: o, c: c, cs: cs, dir: t.TempDir(), procs: map[string]*process.Proc{}, from: map[string]string{}, count: map[string]int{}}
	k.stop = Every(20*time.Millisecond, k.sync)
	return k
}

// Every calls f every interval, in a goroutine of its own, until the
// function it returns is called (which waits for the last call to end).
func Every(interval time.Duration, f func(context.Context)) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			f(context.Background())
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

func (k *Kubelet) sync(ctx context.Context) {
	var deps appsv1.DeploymentList
	if err := k.c.List(ctx, &deps, client.InNamespace(k.o.Namespace)); err == nil {
		for i := range deps.Items {
			if d := &deps.Items[i]; k.o.Skip == nil || !k.o.Skip(d) {
				k.reconcile(d)
			}
		}
	}
	var nss corev1.NamespaceList
	if err := k.c.List(ctx, &nss); err == nil {
		for _, ns := range nss.Items {
			if ns.DeletionTimestamp != nil && len(ns.Spec.Finalizers) > 0 {
				ns.Spec.Finalizers = nil
				_, _ = k.cs.CoreV1().Namespaces().Finalize(ctx, &ns, metav1.UpdateOptions{})
			}
		}
	}
}

func (k *Kubelet) reconcile(d *appsv1.Deployment) {
	k.mu.Lock()
	defer k.mu.Unlock()
	p := k.procs[d.Name]
	running := p != nil
	if running {
		select {
		case <-p.Done():
			running = false // it died: the kubelet starts it again
		default:
		}
	}
	want := d.Spec.Replicas == nil || *d.Spec.Replicas > 0
	from := fmt.Sprint(d.Spec.Template.Labels)
	if want && running && k.from[d.Name] != from {
		_ = p.Kill() // a new template: the rollout replaces the pod
		running = false
	}
	switch {
	case want && !running && len(d.Spec.Template.Spec.Containers) > 0:
		ctr := d.Spec.Template.Spec.Containers[0]
		argv := append([]string{k.o.Bin}, ctr.Args...)
		if len(ctr.Command) > 0 {
			argv = append(slices.Clone(ctr.Command), ctr.Args...)
		}
		env := []string{"KUBECONFIG=" + k.o.Kubeconfig}
		for _, e := range ctr.Env {
			env = append(env, e.Name+"="+downward(e, d.Spec.Template.Labels))
		}
		p, err := process.Start(process.Options{Argv: argv, Env: env, Log: filepath.Join(k.dir, d.Name+".log")})
		if err == nil {
			k.procs[d.Name], k.from[d.Name] = p, from
			k.starts = append(k.starts, start{d.Name, d.Spec.Template.Labels})
			k.count[d.Name]++
		}
	case !want && running:
		_ = p.Kill()
		delete(k.procs, d.Name)
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

// Started is how many times the Deployment's pod was started.
func (k *Kubelet) Started(dep string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.count[dep]
}

// StartedSince lists every pod start since the last call, sorted: the
// Deployment's name and its template's label key ("NAME VALUE").
func (k *Kubelet) StartedSince(key string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, s := range k.starts {
		out = append(out, s.dep+" "+s.labels[key])
	}
	k.starts = nil
	slices.Sort(out)
	return out
}

// Running lists the Deployments whose pod runs.
func (k *Kubelet) Running() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for name, p := range k.procs {
		select {
		case <-p.Done():
		default:
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// WaitRunning waits until exactly these Deployments' pods run (their
// names joined by commas).
func (k *Kubelet) WaitRunning(t testing.TB, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for strings.Join(k.Running(), ",") != want {
		if time.Now().After(deadline) {
			t.Fatalf("running %v, want %s", k.Running(), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop ends the Kubelet and kills its processes.
func (k *Kubelet) Stop() {
	k.stop()
	k.mu.Lock()
	defer k.mu.Unlock()
	for name, p := range k.procs {
		_ = p.Kill()
		delete(k.procs, name)
	}
}

// Logs is the pods' output, for a failure's message.
func (k *Kubelet) Logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(k.dir, "*.log"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(f), data)
	}
	return b.String()
}

// PodReady tells whether p's Ready condition is True, as the stand-ins of
// a cluster's controllers read it.
func PodReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
