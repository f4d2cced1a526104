package staticpod

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance/staticpod/contract"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/node"
)

// probeTimeout bounds one HTTP probe of the operand's loopback endpoints
// (a wall-clock bound on I/O, never a decision).
const probeTimeout = 10 * time.Second

// monitor is the startup-monitor process of one revision on a node: the
// adapter of a monitor core (the subject's). At each look it reads the
// node (the operand manifest's revision, termination.log, the installer
// lock, the last-known-good link, the resource directories), probes the
// operand's endpoints over HTTP and reads the mirror pod, asks the core,
// and carries out its file operations. It looks when a manifest, the lock,
// termination.log, the mirror pod or an endpoint's answer changes, and at
// the core's deadline.
type monitor struct {
	h        *host
	actor    string
	revision int
	core     contract.Monitor // the subject's, for this process
	client   *sim.Client
	exec     executor
	http     *http.Client
	since    time.Time // the core's memory
	next     time.Time // the core's deadline, kept while its ops run
}

func (m *monitor) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	if m.h.c.closed.Load() {
		return reconcile.Result{}, nil
	}
	now := m.h.c.st.Sched.Now()
	if m.exec.busy() {
		return m.carryOn(ctx, now)
	}
	v, err := m.observe(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	d := m.core.Look(v, now)
	m.since, m.next = d.Since, d.Next
	if len(d.Ops) > 0 && d.Ops[0].Kind == contract.TakeLock {
		if d, err = m.decideUnderLock(ctx, now, d.Ops[0]); errors.Is(err, errLockLost) {
			return reconcile.Result{}, nil
		} else if err != nil {
			return reconcile.Result{}, err
		}
	}
	if len(d.Ops) == 0 {
		return after(now, d.Next), nil
	}
	m.exec.start(d.Ops)
	return m.carryOn(ctx, now)
}

// decideUnderLock takes the installer lock a plan starts with, then looks
// and decides again with the lock held, as a monitor reads the node under
// the lock before it changes it. In virtual time nothing can come between
// a look and the lock; in process mode an installer runs in real time
// beside the monitor and may install a revision in between (the lock-race
// built-in saw a fallback written over the revision installed meanwhile).
// The plan returned omits the lock it took; a plan that no longer wants
// the lock releases it.
func (m *monitor) decideUnderLock(ctx context.Context, now time.Time, take contract.Op) (contract.MonitorDecision, error) {
	fsys := m.h.as(ctx, m.actor)
	if err := m.h.do(fsys, take); err != nil {
		return contract.MonitorDecision{}, err
	}
	v, err := m.observe(ctx)
	if err != nil {
		return contract.MonitorDecision{}, errors.Join(err, fsys.Unlock(node.LockPath(operandName)))
	}
	d := m.core.Look(v, now)
	m.since, m.next = d.Since, d.Next
	if len(d.Ops) > 0 && d.Ops[0].Kind == contract.TakeLock {
		d.Ops = d.Ops[1:]
		return d, nil
	}
	return d, fsys.Unlock(node.LockPath(operandName))
}

// carryOn runs the decided operations due by now.
func (m *monitor) carryOn(ctx context.Context, now time.Time) (reconcile.Result, error) {
	due, err := m.exec.run(ctx, now)
	switch {
	case errors.Is(err, errLockLost):
		// The installer was first: look again when it lets go.
		return reconcile.Result{}, nil
	case err != nil:
		return reconcile.Result{}, err
	case !due.IsZero():
		return after(now, due), nil
	}
	return after(now, m.next), nil
}

// observe is what the monitor sees of the node and its operand now.
func (m *monitor) observe(ctx context.Context) (contract.MonitorView, error) {
	fsys := m.h.as(ctx, m.actor)
	v := contract.MonitorView{Revision: m.revision, Timeout: m.h.c.cfg.Timeout, Since: m.since}
	manifest, err := readOptional(fsys, node.ManifestPath(operandName))
	if err != nil {
		return v, err
	}
	if manifest != nil {
		v.Manifest = revisionOf(manifest)
	}
	if holder := lockHolder(fsys); holder != "" && holder != m.actor {
		v.LockHeld = true
	}
	v.LastKnownGood = linked(fsys)
	if v.Revisions, err = revisions(fsys); err != nil {
		return v, err
	}
	log, err := readOptional(fsys, node.TerminationLogPath(operandName))
	if err != nil {
		return v, err
	}
	v.Operand.StartAttempts = startAttempts(log, m.revision)
	v.Operand.Healthz, _ = m.probe("/healthz")
	v.Operand.Etcd, _ = m.probe("/healthz/etcd")
	var body string
	v.Operand.Readyz, body = m.probe("/readyz?verbose")
	for l := range strings.SplitSeq(body, "\n") {
		if rest, ok := strings.CutPrefix(l, "[-]"); ok {
			name, _, _ := strings.Cut(rest, " ")
			v.Operand.Unfinished = append(v.Operand.Unfinished, name)
		}
	}
	pod := &corev1.Pod{}
	switch err := m.client.Get(ctx, types.NamespacedName{Namespace: mirrorNamespace, Name: mirrorName(m.h.name)}, pod); {
	case apierrors.IsNotFound(err):
	case err != nil:
		v.Operand.MirrorLookupFailed = true
	default:
		ready := readyCondition(pod)
		v.Operand.Mirror = &contract.Mirror{Name: pod.Name, UID: string(pod.UID), Revision: annotatedRevision(pod.Annotations),
			Ready: ready != nil && ready.Status == corev1.ConditionTrue, Annotations: pod.Annotations}
	}
	return v, nil
}

// probe asks the operand's endpoint on the node's loopback port.
func (m *monitor) probe(path string) (contract.Probe, string) {
	resp, err := m.http.Get(m.h.srv.URL + path)
	if err != nil {
		return contract.NoAnswer, ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return contract.NoAnswer, ""
	}
	if resp.StatusCode != http.StatusOK {
		return contract.Failed, string(body)
	}
	return contract.OK, string(body)
}
