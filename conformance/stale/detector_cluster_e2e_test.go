package stale_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/process"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// Cluster mode for seed 000's detector: the example detector, deployed as
// a team would deploy it (a Deployment whose arguments are the team's:
// the waits at the run's scale and the run's prefix, since the runs share
// the API server), plays the detector of built-ins that challenge, mark
// and kill the detector, opcert's reference operators beside it, at
// --time-scale 0.01, the run reaching the server as a cluster
// (conformance.Options.Cluster). envtest runs no pods: deployKubelet plays
// the controller-manager and the kubelet for the detectors' namespace. A
// Deployment that runs and never writes must not pass. opcert run's own
// part of cluster mode (the guard, the run's namespace, the clean-up) is
// cmd/opcert's to test; this is the role played as a Deployment.
//
// The kubelet's directory and the binary's are the test's: the parallel
// subtests end before its cleanups run.
const detectorNS = "stale-detectors"

func TestClusterModeCertifiesTheExampleDetector(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := filepath.Join(t.TempDir(), "staledetector")
	if out, err := exec.Command("go", "build", "-o", bin, detectorExamples).CombinedOutput(); err != nil {
		t.Fatalf("building the example detector: %v\n%s", err, out)
	}
	c, err := client.New(api.Config, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: detectorNS}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	kubeconfig, _, err := api.AddUser("stale-detector-pod", "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	k := startKubelet(c, bin, path, t.TempDir())
	t.Cleanup(k.stop)
	for _, name := range []string{"stale-operator-death", "stale-detector-returns"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run, writers, dep := playDeployed(t, c, name, nil)
			certifyDetector(t, run, writers)
			if k.started(dep) == 0 {
				t.Errorf("%s: no pod of Deployment %s ran", name, dep)
			}
			if t.Failed() {
				t.Log(k.logs(dep))
			}
		})
	}
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		run, _, _ := playDeployed(t, c, "stale-operator-death", []string{"/bin/sleep", "600"})
		failed := run.Error != ""
		for _, cs := range run.Cases {
			failed = failed || cs.Status == reports.Fail
		}
		if !failed && len(run.NotJudged) == 0 {
			t.Errorf("a detector Deployment that does nothing passed: %+v", run.Cases)
		}
	})
}

// playDeployed deploys a detector for one run (no replica: the run scales
// it up, and back down at its end), the example detector or, if command is
// given, that command, and plays the built-in name with it as the
// detector, on the server reached as a cluster. It returns the run, who
// wrote the ClusterOperators (actor and role) and the Deployment's name.
func playDeployed(t *testing.T, c client.Client, name string, command []string) (reports.Run, []string, string) {
	t.Helper()
	sc, err := scenarios.BuiltinNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	pre := prefix()
	dep := "detector-" + strings.TrimSuffix(pre, "-")
	zero := int32(0)
	labels := map[string]string{"app": dep}
	ctr := corev1.Container{Name: "detector", Image: "staledetector", Command: command,
		Args: []string{"--prefix", pre, "--challenge-after", "6s", "--unknown-after", "6s", "--silence", "20m"}}
	if command != nil {
		ctr.Args = nil
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: detectorNS, Name: dep},
		Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{ctr}}}}}
	if err := c.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	m := stale.Mechanism(stale.DefaultConfig())
	cast, err := conformance.Subjects(m, map[string]string{stale.RoleDetector: "deployment:" + detectorNS + "/" + dep})
	if err != nil {
		t.Fatal(err)
	}
	run, tl := conformance.Play(context.Background(), c, m, sc, cast, conformance.Options{Prefix: pre,
		Dir: t.TempDir(), TimeScale: detectorScale, Cluster: api.Config})
	var writers []string
	for _, e := range tl.Events() {
		if w := e.Actor + " " + e.Role; e.IsWrite() && e.Object.Kind == "ClusterOperator" && !slices.Contains(writers, w) {
			writers = append(writers, w)
		}
	}
	slices.Sort(writers)
	return run, writers, dep
}

// kubelet plays the controller-manager and the kubelet for the
// Deployments of detectorNS, every 20ms: while one has replicas, its pod
// is one process (its container's command, or the example detector with
// its arguments), with the kubeconfig of a user of its own; once it has
// none, the process is killed (SIGKILL to its group: a kubelet's SIGTERM
// first changes nothing for a detector that keeps no state).
type kubelet struct {
	c          client.Client
	bin, kc    string
	dir        string
	mu         sync.Mutex
	procs      map[string]*process.Proc
	starts     map[string]int
	quit, done chan struct{}
}

func startKubelet(c client.Client, bin, kubeconfig, dir string) *kubelet {
	k := &kubelet{c: c, bin: bin, kc: kubeconfig, dir: dir, procs: map[string]*process.Proc{}, starts: map[string]int{},
		quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(k.done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			k.sync()
			select {
			case <-k.quit:
				return
			case <-tick.C:
			}
		}
	}()
	return k
}

func (k *kubelet) sync() {
	var deps appsv1.DeploymentList
	if err := k.c.List(context.Background(), &deps, client.InNamespace(detectorNS)); err != nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, d := range deps.Items {
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
		switch {
		case want && !running:
			ctr := d.Spec.Template.Spec.Containers[0]
			argv := append([]string{k.bin}, ctr.Args...)
			if len(ctr.Command) > 0 {
				argv = append(slices.Clone(ctr.Command), ctr.Args...)
			}
			p, err := process.Start(process.Options{Argv: argv, Env: []string{"KUBECONFIG=" + k.kc}, Log: filepath.Join(k.dir, d.Name+".log")})
			if err == nil {
				k.procs[d.Name] = p
				k.starts[d.Name]++
			}
		case !want && running:
			_ = p.Kill()
			delete(k.procs, d.Name)
		}
	}
}

// started is how many times the Deployment's pod was started.
func (k *kubelet) started(dep string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.starts[dep]
}

// logs is the output of the Deployment's pods, for a failure's message.
func (k *kubelet) logs(dep string) string {
	data, _ := os.ReadFile(filepath.Join(k.dir, dep+".log"))
	return string(data)
}

func (k *kubelet) stop() {
	close(k.quit)
	<-k.done
	k.mu.Lock()
	defer k.mu.Unlock()
	for name, p := range k.procs {
		_ = p.Kill()
		delete(k.procs, name)
	}
}
