package staticpod

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance/staticpod/contract"
	"github.com/opcert/opcert/sim"
)

// operatorProc is the static pod operator process: the adapter of an operator
// core (the subject's). It rolls out the target revision (asking each
// node's installer), reads each node's mirror pod, asks the core about
// fallbacks and retries, and writes the ClusterOperator's conditions. It
// looks when a mirror pod changes, when the target moves, and at the
// core's retry deadlines.
//
// It keeps no memory of its own: what it must remember (per node, the
// revision it last asked for, the core's memory of the last fallback, the
// last termination message a mirror pod showed) is in its
// ClusterOperator's status.extension, read at every look and written with
// the conditions, as library-go keeps it in its operator resource's node
// statuses. A restarted operator carries on where it stopped. It asks an
// installer only once that status is written: an ask is on the timeline
// before the installer acts on it, and a cut-off operator asks nothing.
type operatorProc struct {
	c      *cluster
	client *sim.Client
	// core is the subject's for this process, made at its first look.
	core contract.Operator
}

// operatorStatus is the operator's durable status, the JSON of its
// ClusterOperator's status.extension.
type operatorStatus struct {
	// NodeStatuses is recorded on the timeline (field
	// status.extension.nodeStatuses): the rules read the operator's asks
	// from it.
	NodeStatuses []nodeStatus `json:"nodeStatuses"`
	// FallbackPods is, per node, the UID of the mirror pod that showed the
	// fallback the operator remembers (contract.Fallback.UID): the API server
	// makes UIDs up, so they are kept apart from what the timeline records.
	FallbackPods map[string]string `json:"fallbackPods,omitempty"`
}

// nodeStatus is what the operator keeps of one node (library-go's
// NodeStatus, with the fields this operator needs).
type nodeStatus struct {
	NodeName string `json:"nodeName"`
	// TargetRevision is the revision the operator last asked the node's
	// installer to install, and Installs how many times it has asked:
	// each ask, a rollout or a retry, counts one.
	TargetRevision int `json:"targetRevision"`
	Installs       int `json:"installs"`
	// The last termination message a mirror pod of the node showed (its
	// operand container's lastState.terminated) and the pod's revision:
	// the mirror pod of a fallback is a new pod without it, so the failed
	// revision's message is the one seen before (003 §User Stories 3).
	TerminatedRevision int    `json:"terminatedRevision,omitempty"`
	TerminationMessage string `json:"terminationMessage,omitempty"`
	// LastFallback is the core's memory of the last fallback on the node.
	LastFallback *fallbackStatus `json:"lastFallback,omitempty"`
}

// fallbackStatus is contract.Fallback as the status keeps it, named after
// library-go's node status fields where they mean the same.
type fallbackStatus struct {
	LastFailedRevision int `json:"lastFailedRevision"`
	// LastFailedTime is when the operator first saw the fallback, the
	// instant its back-off runs from.
	LastFailedTime   time.Time `json:"lastFailedTime"`
	LastFailedReason string    `json:"lastFailedReason"`
	// LastFailedRevisionErrors holds the failed revision's termination
	// message, once known.
	LastFailedRevisionErrors []string `json:"lastFailedRevisionErrors,omitempty"`
	FallbackRevision         int      `json:"fallbackRevision"`
	FallbackMessage          string   `json:"fallbackMessage"`
	PodName                  string   `json:"podName"`
	// Retries of LastFailedRevision made before this fallback, and whether
	// the retry after it has been asked for.
	Retries int  `json:"retries"`
	Retried bool `json:"retried,omitempty"`
}

func newOperator(c *cluster) *operatorProc {
	return &operatorProc{c: c, client: c.st.Sched.Client(c.st.API, operatorActor, RoleOperator)}
}

func (o *operatorProc) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	c := o.c
	if c.closed.Load() {
		return reconcile.Result{}, nil
	}
	if o.core == nil {
		var err error
		if o.core, err = c.operator.instance(); err != nil {
			return reconcile.Result{}, err
		}
	}
	now := c.st.Sched.Now()
	co := &configv1.ClusterOperator{}
	switch err := o.client.Get(ctx, types.NamespacedName{Name: operandName}, co); {
	case apierrors.IsNotFound(err):
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: operandName}}
		if err := o.client.Create(ctx, co); err != nil {
			return reconcile.Result{}, err
		}
	case err != nil:
		return reconcile.Result{}, err
	}
	status := o.status(co)
	target := c.getTarget()
	var next time.Time
	var degraded, notReady, behind []string
	var fallback contract.Condition
	type ask struct {
		h        *host
		revision int
	}
	var asks []ask
	ready := 0
	for _, h := range c.hosts {
		ns := status.node(h.name, c.spec.Installed)
		mirror, msg, err := o.mirror(ctx, h.name)
		if err != nil {
			return reconcile.Result{}, err
		}
		if msg != "" {
			ns.TerminatedRevision, ns.TerminationMessage = mirror.Revision, msg
		}
		mem := ns.LastFallback.memory(status.FallbackPods[h.name])
		n := contract.Node{Target: target, Mirror: mirror, Termination: termination(ns, mirror, mem)}
		d := o.core.Look(mem, n, now)
		ns.LastFallback = rememberFallback(d.Memory)
		if d.Memory != nil && d.Memory.UID != "" {
			status.FallbackPods[h.name] = d.Memory.UID
		} else {
			delete(status.FallbackPods, h.name)
		}
		next = earliest(next, d.Next)
		switch {
		case d.Retry:
			asks = append(asks, ask{h, d.Memory.ForRevision}) // 003 §Retries
		case target > 0 && ns.TargetRevision != target:
			asks = append(asks, ask{h, target}) // a rollout
		}
		if len(asks) > 0 && asks[len(asks)-1].h == h {
			ns.TargetRevision = asks[len(asks)-1].revision
			ns.Installs++
		}
		fallback.Type = d.Condition.Type
		if d.Condition.Status == metav1.ConditionTrue {
			if fallback.Status != metav1.ConditionTrue {
				fallback.Reason = d.Condition.Reason
			}
			fallback.Status = metav1.ConditionTrue
			msg := d.Condition.Message
			if len(c.hosts) > 1 {
				msg = h.name + ": " + msg
			}
			degraded = append(degraded, msg)
		}
		switch {
		case mirror != nil && mirror.Ready:
			ready++
		default:
			notReady = append(notReady, h.name)
		}
		if target > 0 && (mirror == nil || mirror.Revision != target || !mirror.Ready) {
			at := "has no running operand"
			if mirror != nil {
				at = fmt.Sprintf("is at revision %d", mirror.Revision)
			}
			behind = append(behind, fmt.Sprintf("node %s %s", h.name, at))
		}
	}
	if fallback.Status != metav1.ConditionTrue {
		fallback.Status, fallback.Reason = metav1.ConditionFalse, "AsExpected"
	}
	fallback.Message = strings.Join(degraded, "\n")
	want := []configv1.ClusterOperatorStatusCondition{o.condition(fallback)}
	if ready > 0 {
		want = append(want, cond(configv1.OperatorAvailable, configv1.ConditionTrue, "AsExpected",
			fmt.Sprintf("%d of %d nodes run a ready %s", ready, len(c.hosts), operandName)))
	} else {
		want = append(want, cond(configv1.OperatorAvailable, configv1.ConditionFalse, "NoReadyOperand",
			fmt.Sprintf("no node runs a ready %s (%s)", operandName, strings.Join(notReady, ", "))))
	}
	switch {
	case target == 0:
		want = append(want, cond(configv1.OperatorProgressing, configv1.ConditionFalse, "NoRevision", "no revision to roll out yet"))
	case len(behind) > 0:
		want = append(want, cond(configv1.OperatorProgressing, configv1.ConditionTrue, "NodeInstaller",
			fmt.Sprintf("rolling out revision %d: %s", target, strings.Join(behind, ", "))))
	default:
		want = append(want, cond(configv1.OperatorProgressing, configv1.ConditionFalse, "AllNodesAtLatestRevision",
			fmt.Sprintf("%d nodes are at revision %d", len(c.hosts), target)))
	}
	if err := o.write(ctx, co, want, status, now); err != nil {
		return reconcile.Result{}, err
	}
	// The asks are in the status now: the installers may act on them.
	for _, a := range asks {
		a.h.order(a.revision)
	}
	return after(now, next), nil
}

// status is the operator's durable status as its ClusterOperator holds it;
// an unreadable or missing one is a fresh start.
func (o *operatorProc) status(co *configv1.ClusterOperator) *operatorStatus {
	s := &operatorStatus{}
	if raw := co.Status.Extension.Raw; len(raw) > 0 {
		if err := json.Unmarshal(raw, s); err != nil {
			s = &operatorStatus{}
		}
	}
	if s.FallbackPods == nil {
		s.FallbackPods = map[string]string{}
	}
	return s
}

// node is the status of a node, added if missing with the revision the
// node was installed with (the cluster's state before the run) and no ask.
func (s *operatorStatus) node(name string, installed int) *nodeStatus {
	for i := range s.NodeStatuses {
		if s.NodeStatuses[i].NodeName == name {
			return &s.NodeStatuses[i]
		}
	}
	s.NodeStatuses = append(s.NodeStatuses, nodeStatus{NodeName: name, TargetRevision: installed})
	return &s.NodeStatuses[len(s.NodeStatuses)-1]
}

// memory is the core's memory as the status keeps it, nil if none.
func (f *fallbackStatus) memory(uid string) *contract.Fallback {
	if f == nil {
		return nil
	}
	m := &contract.Fallback{ForRevision: f.LastFailedRevision, ToRevision: f.FallbackRevision, Reason: contract.Reason(f.LastFailedReason),
		Message: f.FallbackMessage, PodName: f.PodName, UID: uid, At: f.LastFailedTime, Retries: f.Retries, Retried: f.Retried}
	if len(f.LastFailedRevisionErrors) > 0 {
		m.Termination = f.LastFailedRevisionErrors[0]
	}
	return m
}

// rememberFallback is the core's memory as the status keeps it.
func rememberFallback(m *contract.Fallback) *fallbackStatus {
	if m == nil {
		return nil
	}
	f := &fallbackStatus{LastFailedRevision: m.ForRevision, LastFailedTime: m.At.UTC(), LastFailedReason: string(m.Reason),
		FallbackRevision: m.ToRevision, FallbackMessage: m.Message, PodName: m.PodName, Retries: m.Retries, Retried: m.Retried}
	if m.Termination != "" {
		f.LastFailedRevisionErrors = []string{m.Termination}
	}
	return f
}

// mirror reads a node's mirror pod as the core takes it, and the
// termination message of its operand container's last exit ("" if none).
func (o *operatorProc) mirror(ctx context.Context, nodeName string) (*contract.Mirror, string, error) {
	pod := &corev1.Pod{}
	err := o.client.Get(ctx, types.NamespacedName{Namespace: mirrorNamespace, Name: mirrorName(nodeName)}, pod)
	if apierrors.IsNotFound(err) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	ready := readyCondition(pod)
	return &contract.Mirror{Name: pod.Name, UID: string(pod.UID), Revision: annotatedRevision(pod.Annotations),
		Ready: ready != nil && ready.Status == corev1.ConditionTrue, Annotations: pod.Annotations}, lastTerminated(pod), nil
}

// termination is the failed revision's termination message for the core
// (003 §User Stories 3): the last one a mirror pod of that revision showed,
// the failed revision being the one the mirror pod's fallback annotation
// names, else the one the core remembers; "" if none is known.
func termination(ns *nodeStatus, mirror *contract.Mirror, mem *contract.Fallback) string {
	failed := 0
	if mirror != nil {
		if r, err := strconv.Atoi(mirror.Annotations[contract.AnnotationFallbackForRevision]); err == nil {
			failed = r
		}
	}
	if failed == 0 && mem != nil {
		failed = mem.ForRevision
	}
	if failed > 0 && ns.TerminatedRevision == failed {
		return ns.TerminationMessage
	}
	return ""
}

func (o *operatorProc) condition(c contract.Condition) configv1.ClusterOperatorStatusCondition {
	return cond(configv1.ClusterStatusConditionType(c.Type), configv1.ConditionStatus(c.Status), c.Reason, c.Message)
}

func cond(t configv1.ClusterStatusConditionType, s configv1.ConditionStatus, reason, msg string) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: t, Status: s, Reason: reason, Message: msg}
}

// write sets the conditions that differ, moving the transition time only
// when a status changes, and the operator's durable status, in one status
// write (none if nothing differs).
func (o *operatorProc) write(ctx context.Context, co *configv1.ClusterOperator, want []configv1.ClusterOperatorStatusCondition, status *operatorStatus, now time.Time) error {
	next := co.DeepCopy()
	changed := false
	for _, w := range want {
		i := -1
		for j := range next.Status.Conditions {
			if next.Status.Conditions[j].Type == w.Type {
				i = j
			}
		}
		w.LastTransitionTime = metav1.NewTime(now)
		switch {
		case i < 0:
			next.Status.Conditions = append(next.Status.Conditions, w)
			changed = true
		default:
			cur := next.Status.Conditions[i]
			if cur.Status == w.Status && cur.Reason == w.Reason && cur.Message == w.Message {
				continue
			}
			if cur.Status == w.Status {
				w.LastTransitionTime = cur.LastTransitionTime
			}
			next.Status.Conditions[i] = w
			changed = true
		}
	}
	raw, err := json.Marshal(status)
	if err != nil {
		return err
	}
	if was, err := json.Marshal(o.status(co)); err != nil || !bytes.Equal(was, raw) {
		next.Status.Extension = runtime.RawExtension{Raw: raw}
		changed = true
	}
	if !changed {
		return nil
	}
	return o.client.Status().Update(ctx, next)
}
