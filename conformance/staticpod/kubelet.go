package staticpod

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/node"
	"github.com/opcert/opcert/sim/timeline"
)

// kubelet runs the operand from the manifest in the manifest directory
// (its revision's model, from the scenario), appends each start to
// termination.log, keeps the operand's mirror pod in the API server, and
// runs the startup-monitor from its manifest. It looks when a manifest
// changes and at the instants the operand's state changes.
type kubelet struct {
	h      *host
	actor  string
	client *sim.Client
	// monitorManifest is the startup-monitor manifest it runs, nil if none.
	monitorManifest []byte
	// pod is the mirror pod as it last wrote it and podFor the operand it
	// mirrors; nil when there is none.
	pod    *corev1.Pod
	podFor *operandRun
	// started: it has looked once (the operand of time 0 is the one that
	// was running before the run).
	started bool
}

func (k *kubelet) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	if k.h.c.closed.Load() {
		return reconcile.Result{}, nil
	}
	now := k.h.c.st.Sched.Now()
	fsys := k.h.as(ctx, k.actor)
	data, err := readOptional(fsys, node.ManifestPath(operandName))
	if err != nil {
		return reconcile.Result{}, err
	}
	run := k.h.current()
	defer func() { k.started = true }()
	if run == nil && data != nil || run != nil && !bytes.Equal(run.manifest, data) {
		// A new manifest: the kubelet stops the old pod and starts the
		// new one (a rewrite with the same content changes nothing).
		since := now
		if !k.started && bytes.Equal(data, k.h.preRun) {
			since = now.Add(-k.h.c.st.Scaled(preRunFor)) // the node's state before the run
		}
		if run, err = k.newRun(data, since); err != nil {
			return reconcile.Result{}, err
		}
		k.h.setRunning(run)
		sched := k.h.c.st.Sched
		sched.Enqueue(nodeActor(RoleOperand, k.h.name), request(RoleOperand, k.h.name), now)
	}
	var next time.Time
	if run != nil {
		if next, err = run.op.Sync(fsys); err != nil {
			return reconcile.Result{}, err
		}
	}
	var terminated string
	if run != nil {
		if terminated, err = k.terminated(fsys, run, k.h.state(now)); err != nil {
			return reconcile.Result{}, err
		}
	}
	if err := k.mirror(ctx, run, k.h.state(now), terminated, now); err != nil {
		return reconcile.Result{}, err
	}
	if err := k.monitor(ctx, fsys); err != nil {
		return reconcile.Result{}, err
	}
	return after(now, next), nil
}

// newRun is the operand of a manifest that appeared at since; nil for no
// manifest. A
// manifest without a readable revision is one the kubelet cannot run.
func (k *kubelet) newRun(data []byte, since time.Time) (*operandRun, error) {
	if data == nil {
		return nil, nil
	}
	revision := revisionOf(data)
	model := k.h.c.spec.Model(revision)
	if revision == 0 {
		model = node.Model{Kind: node.InvalidManifest}
	}
	op, err := node.NewOperand(operandName, revision, model, since)
	if err != nil {
		return nil, err
	}
	return &operandRun{manifest: data, revision: revision, op: op.WithScale(k.h.c.st.Scale)}, nil
}

// terminated is the termination message of the operand's last exit, as a
// kubelet reads it from the container's termination message file (here
// termination.log, the revision's last line): "" while it has not exited
// yet or printed none.
func (k *kubelet) terminated(fsys *node.Handle, run *operandRun, st node.State) (string, error) {
	if st.Starts == 0 || st.Starts == 1 && st.Running {
		return "", nil
	}
	log, err := readOptional(fsys, node.TerminationLogPath(operandName))
	if err != nil {
		return "", err
	}
	return terminationMessage(log, run.revision), nil
}

// mirror keeps the mirror pod in step with the operand: a new operand
// gets a new mirror pod (the old one deleted at once, as the kubelet's
// mirror client does), and its phase and Ready condition follow the
// operand's state; once the operand has exited with a termination
// message, its container status carries it as lastState.terminated (003
// §User Stories 3: where the operator finds it).
func (k *kubelet) mirror(ctx context.Context, run *operandRun, st node.State, terminated string, now time.Time) error {
	want := run != nil && st.Pod.Exists
	if k.pod != nil && (!want || k.podFor != run) {
		err := k.client.Delete(ctx, k.pod, client.GracePeriodSeconds(0), client.Preconditions{UID: &k.pod.UID})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		k.pod, k.podFor = nil, nil
	}
	if !want {
		return nil
	}
	if k.pod == nil {
		pod, err := mirrorPod(k.h.name, run.manifest)
		if err != nil {
			return err
		}
		if err := k.client.Create(ctx, pod); err != nil {
			return err
		}
		k.pod, k.podFor = pod, run
	}
	ready := corev1.ConditionFalse
	if st.Pod.Ready {
		ready = corev1.ConditionTrue
	}
	cur := readyCondition(k.pod)
	if k.pod.Status.Phase == st.Pod.Phase && cur != nil && cur.Status == ready && lastTerminated(k.pod) == terminated {
		return nil
	}
	pod := k.pod.DeepCopy()
	pod.Status.Phase = st.Pod.Phase
	pod.Status.ContainerStatuses = nil
	if terminated != "" && len(pod.Spec.Containers) > 0 {
		c := pod.Spec.Containers[0]
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, Image: c.Image, Ready: st.Pod.Ready,
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 1, Reason: "Error", Message: terminated}}}}
	}
	c := corev1.PodCondition{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.NewTime(now)}
	if ready == corev1.ConditionFalse {
		c.Reason = "ContainersNotReady"
		c.Message = "containers with unready status: [" + operandName + "]"
	}
	if cur != nil && cur.Status == ready {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	pod.Status.Conditions = []corev1.PodCondition{c}
	if err := k.client.Status().Update(ctx, pod); err != nil {
		return err
	}
	k.pod = pod
	return nil
}

// lastTerminated is the termination message of a pod's first container's
// last exit, "" if none.
func lastTerminated(pod *corev1.Pod) string {
	for _, c := range pod.Status.ContainerStatuses {
		if t := c.LastTerminationState.Terminated; t != nil {
			return t.Message
		}
	}
	return ""
}

func readyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// mirrorPod is the mirror pod of a manifest on a node: the manifest's pod,
// named for the node, its annotations (revision and fallback ones
// included) kept, and the kubelet's own added.
func mirrorPod(nodeName string, manifest []byte) (*corev1.Pod, error) {
	pod, err := parsePod(manifest)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(manifest)
	hash := hex.EncodeToString(sum[:16])
	pod.TypeMeta = metav1.TypeMeta{}
	pod.Name, pod.Namespace = mirrorName(nodeName), mirrorNamespace
	pod.Annotations = maps.Clone(pod.Annotations)
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[annotationMirror] = hash
	pod.Annotations[annotationHash] = hash
	pod.Annotations[annotationSource] = "file"
	pod.Spec.NodeName = nodeName
	return pod, nil
}

// monitor runs the startup-monitor from its manifest: a new manifest (a
// new revision's) replaces the process, a removed one ends it. A monitor a
// scenario killed is not restarted from the same manifest.
func (k *kubelet) monitor(ctx context.Context, fsys *node.Handle) error {
	data, err := readOptional(fsys, node.MonitorManifestPath(operandName))
	if err != nil {
		return err
	}
	if bytes.Equal(data, k.monitorManifest) && (data == nil) == (k.monitorManifest == nil) {
		return nil
	}
	k.monitorManifest = data
	if err := k.h.kill(ctx, RoleStartupMonitor); err != nil {
		return err
	}
	if data == nil {
		return nil
	}
	return k.h.startMonitor(ctx, revisionOf(data))
}

// readOptional reads a file, nil if it is not there.
func readOptional(fsys *node.Handle, p string) ([]byte, error) {
	data, err := fsys.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && data == nil {
		data = []byte{}
	}
	return data, err
}

// operand reports the operand's endpoints: a Probe event each time the
// answer of /healthz, /healthz/etcd or /readyz changes, the ground truth
// the rules judge the startup-monitor against.
type operand struct {
	h     *host
	actor string
	last  map[string]string // endpoint -> its last answer
}

// The operand's endpoints, as Probe events name them.
var endpoints = []struct{ name, path string }{
	{operandName + "/healthz", "/healthz"},
	{operandName + "/healthz/etcd", "/healthz/etcd"},
	{operandName + "/readyz", "/readyz"},
}

func (o *operand) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	if o.h.c.closed.Load() {
		return reconcile.Result{}, nil
	}
	sched := o.h.c.st.Sched
	now := sched.Now()
	st := o.h.state(now)
	changed := false
	for _, ep := range endpoints {
		detail, failed := answer(st, ep.path)
		key := fmt.Sprintf("%t %s", failed, detail)
		if o.last[ep.name] == key {
			continue
		}
		o.last[ep.name], changed = key, true
		sched.Record(ctx, timeline.Event{Actor: o.actor, Role: RoleOperand, Verb: timeline.VerbProbe,
			Object: timeline.ObjectRef{Kind: timeline.KindProbe, Namespace: o.h.name, Name: ep.name},
			Detail: detail, Failed: failed})
	}
	if changed {
		sched.Enqueue(nodeActor(RoleStartupMonitor, o.h.name), request(RoleStartupMonitor, o.h.name), now)
	}
	return after(now, st.Next), nil
}

// answer is an endpoint's answer as a Probe event tells it: the status,
// and for a failing /healthz or /readyz the failing checks as
// kube-apiserver lists them, one per line.
func answer(st node.State, path string) (string, bool) {
	if !st.Listening {
		return "connection refused", true
	}
	code, body := st.Respond(path, nil)
	detail := fmt.Sprintf("%d %s", code, http.StatusText(code))
	failed := code < 200 || code > 399
	if failed && (path == "/healthz" || path == "/readyz") {
		for l := range strings.SplitSeq(body, "\n") {
			if strings.HasPrefix(l, "[-]") {
				detail += "\n" + l
			}
		}
	}
	return detail, failed
}
