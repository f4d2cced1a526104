package stackable

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The SampleCluster goes through the client as unstructured, so that the
// operator needs no Go type of it in the client's scheme; its workloads
// and pods are the apps/v1 and core/v1 types.

// clusterOf reads a SampleCluster and the conditions it has.
func clusterOf(u *unstructured.Unstructured) (Cluster, []Condition, error) {
	c := Cluster{Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID(), Command: u.GetAnnotations()[AnnotationCommand]}
	if err := convert(u.Object["spec"], &c.Spec); err != nil {
		return c, nil, fmt.Errorf("SampleCluster %s/%s: spec: %w", c.Namespace, c.Name, err)
	}
	var conds []Condition
	raw, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions")
	if err := convert(raw, &conds); err != nil {
		return c, nil, fmt.Errorf("SampleCluster %s/%s: status.conditions: %w", c.Namespace, c.Name, err)
	}
	return c, conds, nil
}

// setConditions puts conds in u's status.conditions.
func setConditions(u *unstructured.Unstructured, conds []Condition) error {
	var raw []any
	if err := convert(conds, &raw); err != nil {
		return err
	}
	return unstructured.SetNestedSlice(u.Object, raw, "status", "conditions")
}

// convert moves v into out through JSON, the form both share.
func convert(v, out any) error {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// The operand's container: the simulated kubelet runs any image, and a
// real cluster needs one that exists to get the pods Running.
const (
	containerName  = "product"
	containerImage = "registry.k8s.io/pause:3.10"
)

// newObject is the workload w, made in namespace ns.
func newObject(w Workload, ns string) client.Object {
	meta := metav1.ObjectMeta{Namespace: ns, Name: w.Name, Labels: maps.Clone(w.Labels),
		OwnerReferences: []metav1.OwnerReference{w.Owner}}
	selector := &metav1.LabelSelector{MatchLabels: maps.Clone(w.Labels)}
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(w.Labels)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: containerName, Image: containerImage}}}}
	switch w.Kind {
	case StatefulSet:
		return &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Replicas: w.Replicas, Selector: selector, Template: template}}
	case DaemonSet:
		return &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Selector: selector, Template: template}}
	}
	return &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Replicas: w.Replicas, Selector: selector, Template: template}}
}

// newList is an empty list of workloads of kind k.
func newList(k Kind) client.ObjectList {
	switch k {
	case StatefulSet:
		return &appsv1.StatefulSetList{}
	case DaemonSet:
		return &appsv1.DaemonSetList{}
	}
	return &appsv1.DeploymentList{}
}

// items are the workloads of a list of newList's.
func items(l client.ObjectList) []client.Object {
	var out []client.Object
	switch l := l.(type) {
	case *appsv1.StatefulSetList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *appsv1.DaemonSetList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *appsv1.DeploymentList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out
}

// kindOf is the kind of one of newObject's workloads.
func kindOf(obj client.Object) Kind {
	switch obj.(type) {
	case *appsv1.StatefulSet:
		return StatefulSet
	case *appsv1.DaemonSet:
		return DaemonSet
	}
	return Deployment
}

// reconcileObject brings an existing workload to w: its labels, the
// cluster as controller, its replicas and its pod template's labels. It
// says whether anything changed (no write otherwise); the selector is
// immutable and left as it is.
func reconcileObject(obj client.Object, w Workload) bool {
	changed := false
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range w.Labels {
		if labels[k] != v {
			labels[k], changed = v, true
		}
	}
	obj.SetLabels(labels)
	refs := obj.GetOwnerReferences()
	if !slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool {
		return r.UID == w.Owner.UID && r.Controller != nil && *r.Controller
	}) {
		obj.SetOwnerReferences(append(refs, w.Owner))
		changed = true
	}
	var replicas **int32
	var template *corev1.PodTemplateSpec
	switch o := obj.(type) {
	case *appsv1.StatefulSet:
		replicas, template = &o.Spec.Replicas, &o.Spec.Template
	case *appsv1.Deployment:
		replicas, template = &o.Spec.Replicas, &o.Spec.Template
	case *appsv1.DaemonSet:
		template = &o.Spec.Template
	}
	if replicas != nil && w.Replicas != nil && (*replicas == nil || **replicas != *w.Replicas) {
		*replicas, changed = new(int32), true
		**replicas = *w.Replicas
	}
	if template.Labels == nil {
		template.Labels = map[string]string{}
	}
	for k, v := range w.Labels {
		if template.Labels[k] != v {
			template.Labels[k], changed = v, true
		}
	}
	return changed
}

// stateOf is what the table reads of a workload and its pods.
func stateOf(obj client.Object, pods []Pod) WorkloadState {
	s := WorkloadState{Kind: kindOf(obj), Name: obj.GetName(), Pods: pods}
	switch o := obj.(type) {
	case *appsv1.StatefulSet:
		s.Replicas, s.AvailableReplicas = replicasOf(o.Spec.Replicas), o.Status.AvailableReplicas
	case *appsv1.Deployment:
		s.Replicas, s.AvailableReplicas = replicasOf(o.Spec.Replicas), o.Status.AvailableReplicas
	case *appsv1.DaemonSet:
		s.Replicas, s.AvailableReplicas, s.NumberReady = o.Status.DesiredNumberScheduled, o.Status.NumberAvailable, o.Status.NumberReady
	}
	return s
}

// replicasOf is spec.replicas as the API server defaults it (1).
func replicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
