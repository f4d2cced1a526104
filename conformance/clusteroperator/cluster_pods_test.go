package clusteroperator_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/clusteroperator/clusteroperatortest"
)

// The keys of seed 001's world operandPods reads and writes, as the
// example component operator (examples/componentoperator) and the rules
// name them.
const (
	// managedByKey is managedBy on each operand the example operator
	// writes: the workloads whose pods operandPods plays, and not one of
	// the operator Deployments the Kubelet runs as processes.
	managedByKey  = clusteroperatortest.ManagedByKey
	managedBy     = clusteroperatortest.ManagedBy
	versionKey    = clusteroperatortest.VersionKey
	workloadKey   = "opcert.io/workload"    // on each pod: its workload
	readyAfterKey = "opcert.io/ready-after" // on a workload: how long its new pods take to get ready
)

// podNodes are the nodes the operands' pods run on: the scenarios'
// default nodes.
var podNodes = []string{"master-0", "master-1", "master-2"}

// operandPods plays the Deployment and DaemonSet controllers and the
// kubelet for the operands of namespace ns, in a few lines rather than
// sim/workload's (which run on opcert's scheduler): pods from the
// template, Pending, then Running and Ready once the workload's
// opcert.io/ready-after has passed since their creation; installed all at
// once, then a Deployment rolled one surged pod at a time (an old pod
// deleted once a new one is ready), a DaemonSet node by node (the old pod
// deleted, then the new one made), neither while its rollout is held
// (paused, OnDelete); the workloads' status counted from their pods. The test calls sync every 50ms (clustertest.Every).
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
		n := int(ptr.Deref(d.Spec.Replicas, 1))
		ready, updated := o.roll(ctx, d, d.Spec.Template, byWorkload[d.Name], nil, n, d.Spec.Paused)
		st := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: int32(len(byWorkload[d.Name])),
			UpdatedReplicas: int32(updated), ReadyReplicas: int32(ready), AvailableReplicas: int32(ready)}
		if !equality.Semantic.DeepEqual(d.Status, st) {
			d.Status = st
			_ = o.c.Status().Update(ctx, d)
		}
	}
	for i := range dss.Items {
		d := &dss.Items[i]
		ready, updated := o.roll(ctx, d, d.Spec.Template, byWorkload[d.Name], podNodes, len(podNodes), d.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType)
		n := int32(len(podNodes))
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
// A held rollout (a Deployment paused, a DaemonSet's update strategy
// OnDelete) replaces no pod of another version, as their controllers do.
// It returns how many pods are ready and how many run the version.
func (o *operandPods) roll(ctx context.Context, w client.Object, tmpl corev1.PodTemplateSpec, pods []corev1.Pod, nodes []string, n int, held bool) (ready, updated int) {
	v := tmpl.Labels[versionKey]
	pace, _ := time.ParseDuration(w.GetAnnotations()[readyAfterKey])
	var fresh, old []corev1.Pod
	waiting := false // a new pod is not ready yet: the rollout waits for it
	for _, p := range pods {
		isReady := clustertest.PodReady(p)
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
	case waiting, held && len(old) > 0:
	case nodes == nil && len(old) > 0 && len(fresh)+len(old) > n:
		o.remove(ctx, old[0])
	case nodes == nil && len(fresh) < n:
		for i := len(fresh); i < n && (i == len(fresh) || len(old) == 0); i++ { // an installation: all at once
			o.create(ctx, w, tmpl, podNodes[(i+len(old))%len(podNodes)])
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
