package staticpod

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sp "github.com/opcert/opcert/reference/staticpod"
	"github.com/opcert/opcert/sim"
)

// operatorProc is the static pod operator process: the adapter of an operator
// core (the subject's). It rolls out the target revision (asking each
// node's installer), reads each node's mirror pod, asks the core about
// fallbacks and retries, and writes the ClusterOperator's conditions. It
// looks when a mirror pod changes, when the target moves, and at the
// core's retry deadlines. Its memory of fallbacks dies with it.
type operatorProc struct {
	c      *cluster
	client *sim.Client
	mem    map[string]*sp.Fallback
	// term is, per node, the last termination message a mirror pod showed
	// (its operand container's lastState.terminated) and its revision: the
	// mirror pod of a fallback is a new pod, so the failed revision's
	// message is what the operator saw before it.
	term map[string]terminated
}

type terminated struct {
	revision int
	message  string
}

func newOperator(c *cluster) *operatorProc {
	return &operatorProc{c: c, client: c.st.Sched.Client(c.st.API, operatorActor, RoleOperator),
		mem: map[string]*sp.Fallback{}, term: map[string]terminated{}}
}

func (o *operatorProc) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	c := o.c
	if c.closed.Load() {
		return reconcile.Result{}, nil
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
	target := c.getTarget()
	var next time.Time
	var degraded, notReady, behind []string
	var fallback sp.Condition
	ready := 0
	for _, h := range c.hosts {
		mirror, msg, err := o.mirror(ctx, h.name)
		if err != nil {
			return reconcile.Result{}, err
		}
		if msg != "" {
			o.term[h.name] = terminated{revision: mirror.Revision, message: msg}
		}
		n := sp.Node{Target: target, Mirror: mirror, Termination: o.termination(h.name, mirror)}
		d := c.operator.decide(c.operator.params, o.mem[h.name], n, now)
		o.mem[h.name] = d.Memory
		next = earliest(next, d.Next)
		switch {
		case d.Retry:
			c.ask(h, d.Memory.ForRevision) // 003 §Retries
		case target > 0 && c.askedOf(h) != target:
			c.ask(h, target) // a rollout
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
	if err := o.write(ctx, co, want, now); err != nil {
		return reconcile.Result{}, err
	}
	return after(now, next), nil
}

// mirror reads a node's mirror pod as the core takes it, and the
// termination message of its operand container's last exit ("" if none).
func (o *operatorProc) mirror(ctx context.Context, nodeName string) (*sp.Mirror, string, error) {
	pod := &corev1.Pod{}
	err := o.client.Get(ctx, types.NamespacedName{Namespace: mirrorNamespace, Name: mirrorName(nodeName)}, pod)
	if apierrors.IsNotFound(err) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	ready := readyCondition(pod)
	return &sp.Mirror{Name: pod.Name, UID: string(pod.UID), Revision: annotatedRevision(pod.Annotations),
		Ready: ready != nil && ready.Status == corev1.ConditionTrue, Annotations: pod.Annotations}, lastTerminated(pod), nil
}

// termination is the failed revision's termination message for the core
// (003 §User Stories 3): the last one a mirror pod of that revision showed,
// the failed revision being the one the mirror pod's fallback annotation
// names, else the one the core remembers; "" if none is known.
func (o *operatorProc) termination(nodeName string, mirror *sp.Mirror) string {
	failed := 0
	if mirror != nil {
		if r, err := strconv.Atoi(mirror.Annotations[sp.AnnotationFallbackForRevision]); err == nil {
			failed = r
		}
	}
	if m := o.mem[nodeName]; failed == 0 && m != nil {
		failed = m.ForRevision
	}
	if t := o.term[nodeName]; failed > 0 && t.revision == failed {
		return t.message
	}
	return ""
}

func (o *operatorProc) condition(c sp.Condition) configv1.ClusterOperatorStatusCondition {
	return cond(configv1.ClusterStatusConditionType(c.Type), configv1.ConditionStatus(c.Status), c.Reason, c.Message)
}

func cond(t configv1.ClusterStatusConditionType, s configv1.ConditionStatus, reason, msg string) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: t, Status: s, Reason: reason, Message: msg}
}

// write sets the conditions that differ, moving the transition time only
// when a status changes, in one status write (none if nothing differs).
func (o *operatorProc) write(ctx context.Context, co *configv1.ClusterOperator, want []configv1.ClusterOperatorStatusCondition, now time.Time) error {
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
	if !changed {
		return nil
	}
	return o.client.Status().Update(ctx, next)
}
