package stackable_test

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/stackable/stackabletest"
)

// The labels seed 004's scenarios find a cluster's workloads and pods by,
// which the example puts on its workloads and their templates.
const (
	instanceLabel  = stackabletest.InstanceLabel
	componentLabel = "app.kubernetes.io/component"
)

// podNodes are the nodes the workloads' pods run on: the scenarios'
// default nodes.
var podNodes = []string{"master-0", "master-1", "master-2"}

// stackablePods plays the cluster's controllers and kubelet for the
// workloads of product clusters (labelled app.kubernetes.io/instance), in
// every namespace, in a few lines rather than sim/workload's (which run
// on opcert's scheduler): a pod per replica (a DaemonSet's per node),
// named <workload>-<n>, Running and Ready once pace has passed since its
// creation; extra pods deleted; the workloads' status counted from their
// pods; and, as the garbage collector, the workloads of a SampleCluster
// that is gone deleted, and the pods of a workload that is gone; as the
// kubelet, a pod past its spec.activeDeadlineSeconds (counted from its
// start) Failed, reason DeadlineExceeded, which its controller deletes
// and makes again, as a StatefulSet or a DaemonSet does. The test calls
// sync every 50ms (clustertest.Every).
type stackablePods struct {
	c    client.Client
	pace time.Duration
	born map[string]time.Time // by namespace/name
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
		ws = append(ws, workloadOf{obj: s, want: int(ptr.Deref(s.Spec.Replicas, 1)), template: s.Spec.Template})
	}
	for i := range deps.Items {
		d := &deps.Items[i]
		ws = append(ws, workloadOf{obj: d, want: int(ptr.Deref(d.Spec.Replicas, 1)), template: d.Spec.Template})
	}
	for i := range dss.Items {
		d := &dss.Items[i]
		ws = append(ws, workloadOf{obj: d, want: len(podNodes), template: d.Spec.Template, daemon: true})
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
		if !p.wanted(w, name) || pod.Status.Phase == corev1.PodFailed {
			// A StatefulSet and a DaemonSet delete a failed pod and make
			// it again; a ReplicaSet would leave it and make another, but
			// the player names a workload's pods by their place.
			p.remove(ctx, pod)
			continue
		}
		names[name] = true
		key := pod.Namespace + "/" + name
		if pastDeadline(pod) {
			// The kubelet: a pod past its activeDeadlineSeconds (from its
			// start) is stopped and Failed.
			pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "DeadlineExceeded"
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Now()}}
			_ = p.c.Status().Update(ctx, &pod)
			continue
		}
		if !clustertest.PodReady(pod) && time.Since(p.born[key]) >= p.pace {
			pod.Status.Phase = corev1.PodRunning
			pod.Status.StartTime = ptr.To(metav1.NewTime(p.born[key]))
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
			if p.c.Status().Update(ctx, &pod) != nil {
				continue
			}
		}
		if clustertest.PodReady(pod) {
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
		pod.Spec.NodeName = podNodes[i%len(podNodes)]
		if p.c.Create(ctx, pod) == nil {
			p.born[pod.Namespace+"/"+name] = time.Now()
		}
	}
	return ready
}

// pastDeadline tells whether a started pod has run for its
// spec.activeDeadlineSeconds.
func pastDeadline(pod corev1.Pod) bool {
	d, start := pod.Spec.ActiveDeadlineSeconds, pod.Status.StartTime
	return d != nil && start != nil && time.Since(start.Time) >= time.Duration(*d)*time.Second
}

func (p *stackablePods) podName(w workloadOf, i int) string {
	if w.daemon {
		return w.obj.GetName() + "-" + podNodes[i]
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
