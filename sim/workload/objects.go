package workload

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// workloadKey names one workload: kinds keep a Deployment and a DaemonSet
// of one name apart.
type workloadKey struct {
	Kind            Kind
	Namespace, Name string
}

func (k workloadKey) String() string { return string(k.Kind) + "/" + k.Namespace + "/" + k.Name }

// newObject is an empty workload of kind k.
func newObject(k Kind) client.Object {
	switch k {
	case DaemonSet:
		return &appsv1.DaemonSet{}
	case StatefulSet:
		return &appsv1.StatefulSet{}
	}
	return &appsv1.Deployment{}
}

// newList is an empty list of workloads of kind k.
func newList(k Kind) client.ObjectList {
	switch k {
	case DaemonSet:
		return &appsv1.DaemonSetList{}
	case StatefulSet:
		return &appsv1.StatefulSetList{}
	}
	return &appsv1.DeploymentList{}
}

// specOf reads what the planner needs of a workload: its replicas (1 if
// unset, as the API server defaults them), template and its hash, and a
// StatefulSet's pod management policy.
func specOf(k workloadKey, obj client.Object) (Spec, corev1.PodTemplateSpec) {
	s := Spec{Kind: k.Kind, Name: k.Name, Replicas: 1}
	var t corev1.PodTemplateSpec
	switch w := obj.(type) {
	case *appsv1.Deployment:
		t = w.Spec.Template
		if w.Spec.Replicas != nil {
			s.Replicas = int(*w.Spec.Replicas)
		}
	case *appsv1.DaemonSet:
		t = w.Spec.Template
	case *appsv1.StatefulSet:
		t = w.Spec.Template
		if w.Spec.Replicas != nil {
			s.Replicas = int(*w.Spec.Replicas)
		}
		s.Parallel = w.Spec.PodManagementPolicy == appsv1.ParallelPodManagement
	}
	s.Hash = TemplateHash(t)
	return s, t
}

// TemplateHash is the hash of a pod template that pods made from it carry
// (LabelTemplateHash): FNV-32a of the JSON of what the simulated pods run
// from it (its labels, its annotations, and each container's name, image,
// command, arguments and environment), 8 hex digits, the same in every
// run. The fields the API server defaults are left out, so that a hash
// computed from the template as written is the one of the template as
// stored. A change of any of those starts a rolling update.
func TemplateHash(t corev1.PodTemplateSpec) string {
	type container struct {
		Name, Image   string
		Command, Args []string
		Env           []corev1.EnvVar
	}
	hashed := struct {
		Labels, Annotations map[string]string
		Containers          []container
	}{Labels: t.Labels, Annotations: t.Annotations}
	for _, c := range t.Spec.Containers {
		hashed.Containers = append(hashed.Containers, container{c.Name, c.Image, c.Command, c.Args, c.Env})
	}
	// Empty and absent are one to the API server, and so to the hash.
	if len(hashed.Labels) == 0 {
		hashed.Labels = nil
	}
	if len(hashed.Annotations) == 0 {
		hashed.Annotations = nil
	}
	for i, c := range hashed.Containers {
		if len(c.Command) == 0 {
			hashed.Containers[i].Command = nil
		}
		if len(c.Args) == 0 {
			hashed.Containers[i].Args = nil
		}
		if len(c.Env) == 0 {
			hashed.Containers[i].Env = nil
		}
	}
	data, err := json.Marshal(hashed)
	if err != nil {
		// Strings only: this cannot fail; hash the printed form if it did.
		data = fmt.Appendf(nil, "%#v", hashed)
	}
	h := fnv.New32a()
	_, _ = h.Write(data)
	return fmt.Sprintf("%08x", h.Sum32())
}

// readyAfter is how long the workload's new pods take to get ready: its
// AnnotationReadyAfter, else the default (also for a value that is not a
// duration of zero or more).
func readyAfter(obj client.Object, def time.Duration) time.Duration {
	if v, ok := obj.GetAnnotations()[AnnotationReadyAfter]; ok {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return d
		}
	}
	return def
}

// newPod is the pod name of workload k on node, made from template t:
// the template's labels with the workload and the template hash, its
// annotations, and one container with the template's first container's
// name and image (DefaultContainer for either when absent).
func newPod(k workloadKey, t corev1.PodTemplateSpec, hash, name, node string) *corev1.Pod {
	labels := maps.Clone(t.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelWorkload] = k.Name
	labels[LabelTemplateHash] = hash
	c := corev1.Container{Name: DefaultContainer, Image: DefaultContainer}
	if len(t.Spec.Containers) > 0 {
		if n := t.Spec.Containers[0].Name; n != "" {
			c.Name = n
		}
		if img := t.Spec.Containers[0].Image; img != "" {
			c.Image = img
		}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: k.Namespace, Labels: labels, Annotations: maps.Clone(t.Annotations)},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{c}},
	}
}

// podOf is a pod as the planner sees it.
func podOf(p *corev1.Pod) Pod {
	out := Pod{Name: p.Name, Node: p.Spec.NodeName, Hash: p.Labels[LabelTemplateHash], Phase: p.Status.Phase}
	if c := readyCondition(p); c != nil {
		out.Ready = c.Status == corev1.ConditionTrue
	}
	return out
}

func readyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
